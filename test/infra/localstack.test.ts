import { beforeAll, describe, expect, it } from 'vitest';
import { unacknowledgedFindings } from './nag';
import { actionsOf, allTemplates, functionsOf, methodsOf, resourcesOfType, synthesize, type CfnResource, type CfnTemplate, type Synthesized } from './support';

/**
 * The template LocalStack's free image must deploy: stage `local`, as localstack/deploy.sh
 * synthesizes it (`-c stage=local`, whose defaults are `-c ledgerIssuer=embedded -c ledgerVpc=false`,
 * and `-c executeApiDomain=localhost.localstack.cloud:4566`, where LocalStack answers API hosts).
 */
const DEPLOY_SH_CONTEXT = { ledgerIssuer: 'embedded', ledgerVpc: 'false', executeApiDomain: 'localhost.localstack.cloud:4566' };

/**
 * The resource types the free image can create, and only those the platform uses: each has a
 * CloudFormation resource provider in the open-source LocalStack
 * (github.com/localstack/localstack, localstack-core/localstack/services/<service>/resource_providers,
 * read at 8b9a79f of 2026-03-23) and its service is on LocalStack's free plan (API coverage pages:
 * Lambda, API Gateway REST, DynamoDB and Streams, SQS, EventBridge, KMS, Secrets Manager, IAM,
 * CloudWatch, CloudWatch Logs, CloudFormation). Deliberately absent:
 *   - AWS::Cognito::* (Cognito user pools start with the paid Base plan; no provider in the open source);
 *   - AWS::CloudWatch::Dashboard (no provider: stage local builds none, lib/wallet-stack.ts);
 *   - AWS::EC2::* (the EC2 emulation creates VPCs but enforces nothing, and AWS::EC2::FlowLog and
 *     AWS::EC2::SecurityGroupIngress, which the VPC layout needs, have no provider at all).
 */
const FREE_IMAGE_TYPES = new Set([
  'AWS::ApiGateway::Account',
  'AWS::ApiGateway::Deployment',
  'AWS::ApiGateway::GatewayResponse',
  'AWS::ApiGateway::Method',
  'AWS::ApiGateway::Resource',
  'AWS::ApiGateway::RestApi',
  'AWS::ApiGateway::Stage',
  'AWS::CDK::Metadata',
  'AWS::CloudFormation::Stack',
  'AWS::CloudWatch::Alarm',
  'AWS::DynamoDB::Table',
  'AWS::Events::EventBus',
  'AWS::Events::Rule',
  'AWS::IAM::Policy',
  'AWS::IAM::Role',
  'AWS::KMS::Alias',
  'AWS::KMS::Key',
  'AWS::Lambda::EventSourceMapping',
  'AWS::Lambda::Function',
  'AWS::Lambda::Permission',
  'AWS::Logs::LogGroup',
  'AWS::SecretsManager::Secret',
  // The alarm topic (SNS is on the free plan; providers aws_sns_topic, aws_sns_topicpolicy).
  'AWS::SNS::Topic',
  'AWS::SNS::TopicPolicy',
  'AWS::SQS::Queue',
  'AWS::SQS::QueuePolicy',
]);

const templatesOf = (synth: Synthesized): CfnTemplate[] => [...allTemplates(synth.stacks.ledger), ...allTemplates(synth.stacks.wallet)];
const typesOf = (synth: Synthesized): Set<string> => new Set(templatesOf(synth).flatMap((template) => Object.values(template.Resources).map((resource) => resource.Type)));

let local: Synthesized;
beforeAll(() => {
  local = synthesize({}, 'local', {}, DEPLOY_SH_CONTEXT);
});

describe('the stage local template (LocalStack)', () => {
  it('has no Cognito resource and only resource types of the free image, with the defaults of stage local too', () => {
    const types = typesOf(local);
    expect(typesOf(synthesize({}, 'local'))).toEqual(types);

    expect([...types].filter((type) => type.startsWith('AWS::Cognito::'))).toEqual([]);
    expect([...types].filter((type) => !FREE_IMAGE_TYPES.has(type)).sort()).toEqual([]);
  });

  it('has no VPC: REGIONAL APIs without endpoint policies, no function in a VPC', () => {
    for (const [, api] of resourcesOfType(local.stacks.ledger.parent, 'AWS::ApiGateway::RestApi').concat(resourcesOfType(local.stacks.wallet.parent, 'AWS::ApiGateway::RestApi'))) {
      expect(api.Properties?.EndpointConfiguration).toEqual({ Types: ['REGIONAL'] });
      expect(api.Properties?.Policy).toBeUndefined();
    }
    for (const found of [...functionsOf(local.stacks.ledger), ...functionsOf(local.stacks.wallet)]) expect(found.fn.Properties?.VpcConfig).toBeUndefined();
  });

  it("serves the ledger's client-credentials tokens from the embedded issuer on the ledger API, signed by a KMS key", () => {
    const ledgerApi = (path: string, method: string) => methodsOf(local.stacks.ledger).find((found) => found.path === path && found.httpMethod === method);
    const issuers = ['/oauth2/token POST', '/.well-known/jwks.json GET', '/.well-known/openid-configuration GET'].map((entry) => {
      const [path, method] = entry.split(' ') as [string, string];
      return ledgerApi(path, method)?.functionLogicalId;
    });
    expect(new Set(issuers).size).toBe(1);
    const issuer = functionsOf(local.stacks.ledger).find((found) => found.logicalId === issuers[0])!;
    expect(issuer).toBeDefined();

    const [[keyId, key]] = resourcesOfType(local.stacks.ledger.parent, 'AWS::KMS::Key') as [[string, CfnResource]];
    expect(keyId).toBe('IssuerSigningKey');
    expect(key.Properties).toMatchObject({ KeySpec: 'RSA_2048', KeyUsage: 'SIGN_VERIFY' });
    const actions = actionsOf(issuer);
    expect(actions.get('kms:Sign')).toEqual([{ 'Fn::GetAtt': ['IssuerSigningKey', 'Arn'] }]);
    expect(actions.get('kms:GetPublicKey')).toEqual([{ 'Fn::GetAtt': ['IssuerSigningKey', 'Arn'] }]);
    expect(JSON.stringify(actions.get('secretsmanager:GetSecretValue'))).toContain(':secret:wp-local-ledger/ledger-clients/*');
    expect([...actions.keys()].filter((action) => action.startsWith('dynamodb:'))).toEqual([]);
    expect(issuer.env).toMatchObject({ OIDC_AUDIENCE: 'ledger', OIDC_ISSUER_CLIENTS_PREFIX: 'wp-local-ledger/ledger-clients/' });

    // The ledger's verifier compares `iss` with the issuer's own URL: the ledger API's.
    const ledgerRoutes = functionsOf(local.stacks.ledger).filter((found) => found.env.OIDC_JWKS_URL !== undefined);
    expect(ledgerRoutes.length).toBeGreaterThan(0);
    for (const found of ledgerRoutes) expect(found.env.OIDC_ISSUER).toEqual(issuer.env.OIDC_ISSUER);
    expect(JSON.stringify(issuer.env.OIDC_ISSUER)).toMatch(/execute-api\.localhost\.localstack\.cloud:4566\/local/);
  });

  it("keeps the wallet's client in a generated secret under the issuer's client prefix", () => {
    const [[, secret]] = resourcesOfType(local.stacks.ledger.parent, 'AWS::SecretsManager::Secret') as [[string, CfnResource]];
    expect(secret.Properties).toMatchObject({
      Name: 'wp-local-ledger/ledger-clients/wallet',
      GenerateSecretString: { SecretStringTemplate: JSON.stringify({ client_id: 'wallet' }), GenerateStringKey: 'client_secret' },
    });
    const callers = functionsOf(local.stacks.wallet).filter((found) => found.env.LEDGER_CREDENTIALS_SECRET_ARN !== undefined);
    expect(callers.length).toBeGreaterThan(0);
    for (const found of callers) expect(actionsOf(found).has('secretsmanager:GetSecretValue')).toBe(true);
  });

  it('stays free of unacknowledged cdk-nag findings', () => {
    const findings = unacknowledgedFindings(local.app);
    expect([...findings.errors, ...findings.warnings]).toEqual([]);
  });
});

describe('the context switches', () => {
  it('put the embedded issuer in any stage with -c ledgerIssuer=embedded, the VPC kept (the issuer outside it)', () => {
    const embedded = synthesize({}, 'emb', {}, { ledgerIssuer: 'embedded' });
    const types = typesOf(embedded);

    expect([...types].filter((type) => type.startsWith('AWS::Cognito::'))).toEqual([]);
    expect(types.has('AWS::EC2::VPC')).toBe(true);
    const issuer = functionsOf(embedded.stacks.ledger).find((found) => found.env.OIDC_ISSUER_CLIENTS_PREFIX !== undefined)!;
    expect(issuer.fn.Properties?.VpcConfig).toBeUndefined();
  });

  it('refuse a ledger without its VPC outside stage local', () => {
    expect(() => synthesize({}, 'prod', {}, { ledgerVpc: 'false' })).toThrow(/ledgerVpc=false is for stage local/);
    expect(() => synthesize({}, 'local', {}, { ledgerIssuer: 'keycloak' })).toThrow(/ledgerIssuer must be cognito or embedded/);
  });
});
