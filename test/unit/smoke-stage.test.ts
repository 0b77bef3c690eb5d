import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { publicApiUrlOfStage } from '../../scripts/smoke';

/** `npm run smoke -- --stage <name>`: the one AWS call it makes (no local stand-in for CloudFormation), checked by its request. */

const cloudFormation = mockClient(CloudFormationClient);
afterEach(() => cloudFormation.reset());

describe('publicApiUrlOfStage', () => {
  it("asks for the stage's wallet stack and takes its PublicApiUrl output", async () => {
    cloudFormation.on(DescribeStacksCommand).resolves({
      Stacks: [
        {
          StackName: 'wallet-platform-dev-wallet',
          CreationTime: new Date(),
          StackStatus: 'CREATE_COMPLETE',
          Outputs: [
            { OutputKey: 'EventBusName', OutputValue: 'wallet-events-dev' },
            { OutputKey: 'PublicApiUrl', OutputValue: 'https://abc123.execute-api.eu-west-1.amazonaws.com/dev/' },
          ],
        },
      ],
    });
    expect(await publicApiUrlOfStage('dev', 'eu-west-1')).toBe('https://abc123.execute-api.eu-west-1.amazonaws.com/dev');
    expect(cloudFormation.commandCalls(DescribeStacksCommand).map((call) => call.args[0].input)).toEqual([{ StackName: 'wallet-platform-dev-wallet' }]);
  });

  it('says so when the stack has no such output', async () => {
    cloudFormation.on(DescribeStacksCommand).resolves({ Stacks: [{ StackName: 'wallet-platform-qa-wallet', CreationTime: new Date(), StackStatus: 'CREATE_COMPLETE', Outputs: [] }] });
    await expect(publicApiUrlOfStage('qa', 'eu-west-1')).rejects.toThrow('the stack wallet-platform-qa-wallet has no PublicApiUrl output');
  });
});
