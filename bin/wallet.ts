import { App, Validations } from 'aws-cdk-lib';
import * as sns from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import { bundle } from '../scripts/bundle';
import { FunctionCode, skipBundling } from '../lib/function';
import { LedgerStack } from '../lib/ledger-stack';
import { idpFromContext, provisionedConcurrencyFromContext, WalletStack } from '../lib/wallet-stack';

/**
 * The CDK app: `npx cdk synth` (bundles first) or `npx cdk synth -c skipBundling=true`.
 * Environment-agnostic on purpose: no lookups, so synth works offline and without an AWS account;
 * account and region come from the CLI profile at deploy time.
 */
const app = new App();
const stage = String(app.node.tryGetContext('stage') ?? 'dev');
if (!/^[a-z][a-z0-9]{0,15}$/.test(stage)) throw new Error(`stage "${stage}" must be lowercase letters and digits`);

// Where the stage's alarms notify: an existing SNS topic, or (absent) one the ledger stack makes.
const alarmTopicArn = app.node.tryGetContext('alarmTopicArn') as string | undefined;

const code = skipBundling(app) ? FunctionCode.standIn() : FunctionCode.bundled((await bundle()).outdir);

const ledger = new LedgerStack(app, 'Ledger', {
  stackName: `wallet-platform-${stage}-ledger`,
  description: 'Wallet platform: ledger (VPC, LedgerTable, private ledger API, OIDC issuer)',
  stage,
  code,
  ...(alarmTopicArn ? { alarmTopic: sns.Topic.fromTopicArn(app, 'AlarmTopic', alarmTopicArn) } : {}),
});
new WalletStack(app, 'Wallet', {
  stackName: `wallet-platform-${stage}-wallet`,
  description: 'Wallet platform: public wallet+auth API, console API, WalletTable, token-signing key, workers, events',
  stage,
  code,
  ledger: ledger.exports,
  // Optional: -c idpIssuer=https://... [-c idpAudience=...] [-c idpJwksUrl=https://...]
  idp: idpFromContext(app),
  // Optional: -c provisionedConcurrency=money:2,payments:2,orders:1 (latency-critical routes by tag or operationId)
  provisionedConcurrency: provisionedConcurrencyFromContext(app),
  alarmTopic: ledger.alarmTopic,
  watchAlso: { gateways: [{ name: 'ledger', api: ledger.api }], tables: [ledger.table] },
});

Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
