import { Aws, Duration, Fn, Lazy, RemovalPolicy, SecretValue, Validations, type Stack } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { issuerHandler } from '../scripts/bundle';
import { lambdaProxy, type ProjectApi } from './api';
import { buildFunction, FunctionRoles, type Capability, type FunctionContext } from './function';

/**
 * The OIDC issuer ledger consumers get their client-credentials tokens from, one of two kinds:
 *   - `cognito`:  a Cognito user pool (resource server `ledger`, a domain, the wallet's app client),
 *                 relayed by the ledger's private API because the isolated subnets cannot reach it;
 *   - `embedded`: the development issuer (shared/http/oidc-issuer.ts) as a Lambda behind the ledger's
 *                 own API, signing with a KMS key, its clients one Secrets Manager secret each. For
 *                 LocalStack's free image, which has no Cognito (docs/infrastructure.md).
 * Both issue RS256 access tokens with `sub` = the client id and scope `ledger/postings` at
 * `<ledger API>/oauth2/token`, with keys at `<ledger API>/.well-known/jwks.json`, so the ledger's
 * verifier and the wallet's client work unchanged with either.
 */

/** Resource server of the consumer pool: tokens carry `scope: ledger/postings`. */
export const LEDGER_AUDIENCE = 'ledger';
export const LEDGER_SCOPE = 'postings';
/** The wallet's own client id with the embedded issuer (with Cognito it is the app client's generated id). */
export const EMBEDDED_WALLET_CLIENT = 'wallet';

export type LedgerIssuerKind = 'cognito' | 'embedded';

/** `-c ledgerIssuer=cognito|embedded`; stage `local` (LocalStack) defaults to embedded, every other stage to Cognito. */
export function ledgerIssuerOf(scope: Construct, stage: string): LedgerIssuerKind {
  const value: unknown = scope.node.tryGetContext('ledgerIssuer');
  if (value === undefined || value === null || value === '') return stage === 'local' ? 'embedded' : 'cognito';
  if (value !== 'cognito' && value !== 'embedded') throw new Error(`-c ledgerIssuer must be cognito or embedded; got ${String(value)}`);
  return value;
}

/**
 * `-c ledgerVpc=true|false`: whether the ledger (and the wallet functions that call it) sit in the
 * isolated VPC behind PRIVATE APIs. Default true; false only for stage `local`: LocalStack's free
 * image emulates neither VPC isolation nor PrivateLink nor resource policies, so the LocalStack
 * template leaves them out rather than pretending. Anywhere else an open ledger API is refused.
 */
export function ledgerVpcOf(scope: Construct, stage: string): boolean {
  const value: unknown = scope.node.tryGetContext('ledgerVpc');
  const inVpc = value === undefined || value === null || value === '' ? stage !== 'local' : value === true || value === 'true';
  if (value !== undefined && value !== null && value !== '' && ![true, false, 'true', 'false'].includes(value as string | boolean)) {
    throw new Error(`-c ledgerVpc must be true or false; got ${String(value)}`);
  }
  if (!inVpc && stage !== 'local') throw new Error(`-c ledgerVpc=false is for stage local (LocalStack) only; stage ${stage} keeps the ledger in its VPC`);
  return inVpc;
}

export interface LedgerIssuer {
  kind: LedgerIssuerKind;
  /** The `iss` of consumer tokens: the ledger functions' OIDC_ISSUER. */
  issuerUrl: string;
  /** Where a consumer outside the ledger's network gets tokens (an output). */
  publicTokenEndpoint: string;
  /** `{client_id, client_secret}` of the wallet's client. */
  walletCredentials: secretsmanager.ISecret;
  /** The `sub` of the wallet's tokens: register the wallet's ledger consumer with it. */
  walletConsumerSub: string;
  /** Puts the token and key endpoints (or their relay) on the ledger API. */
  attachTo(api: ProjectApi): void;
}

/**
 * The Cognito pool. Its constructs live directly in the stack with the ids they always had, so a
 * deployed pool and client keep their logical ids (a new pool would mean new client ids).
 */
export function cognitoIssuer(stack: Stack, stage: string): LedgerIssuer {
  // OIDC issuer for ledger consumers (client-credentials only; no human users).
  const userPool = new cognito.UserPool(stack, 'Consumers', {
    userPoolName: `${stack.stackName}-consumers`,
    selfSignUpEnabled: false,
    // No one signs in here; should a user ever be added, the strictest settings apply.
    mfa: cognito.Mfa.REQUIRED,
    mfaSecondFactor: { otp: true, sms: false },
    passwordPolicy: { minLength: 14, requireDigits: true, requireLowercase: true, requireUppercase: true, requireSymbols: true },
    accountRecovery: cognito.AccountRecovery.NONE,
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
  Validations.of(userPool).acknowledge({
    id: 'AwsSolutions-COG8',
    reason:
      'The pool has no human users: it only issues client-credentials tokens to ledger consumers, and the Plus plan adds threat protection for user sign-ins, which never happen here.',
  });
  const postings = new cognito.ResourceServerScope({ scopeName: LEDGER_SCOPE, scopeDescription: 'Call the ledger API as a registered consumer' });
  const resourceServer = userPool.addResourceServer('LedgerApi', { identifier: LEDGER_AUDIENCE, scopes: [postings] });
  const domain = userPool.addDomain('Domain', {
    cognitoDomain: { domainPrefix: Fn.join('-', ['wallet-ledger', stage, stack.account]) },
  });
  const walletClient = userPool.addClient('WalletClient', {
    userPoolClientName: 'wallet',
    generateSecret: true,
    oAuth: { flows: { clientCredentials: true }, scopes: [cognito.OAuthScope.resourceServer(resourceServer, postings)] },
    accessTokenValidity: Duration.hours(1),
    enableTokenRevocation: true,
    preventUserExistenceErrors: true,
  });
  const walletCredentials = new secretsmanager.Secret(stack, 'WalletLedgerCredentials', {
    description: "The wallet's ledger consumer client: {client_id, client_secret} for the client-credentials grant",
    secretObjectValue: {
      client_id: SecretValue.unsafePlainText(walletClient.userPoolClientId),
      // CloudFormation's own attribute: no custom resource reads the secret back.
      client_secret: SecretValue.resourceAttribute((walletClient.node.defaultChild as cognito.CfnUserPoolClient).attrClientSecret),
    },
  });
  Validations.of(walletCredentials).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason:
      'The value is a Cognito app client secret that Secrets Manager cannot rotate by itself; it is rotated by adding a second client secret in Cognito and updating this secret (runbook in docs/infrastructure.md).',
  });
  const issuerUrl = userPool.userPoolProviderUrl;
  const tokenEndpoint = `${domain.baseUrl()}/oauth2/token`;
  return {
    kind: 'cognito',
    issuerUrl,
    publicTokenEndpoint: tokenEndpoint,
    walletCredentials,
    walletConsumerSub: walletClient.userPoolClientId,
    attachTo: (api) => {
      // Identity relay on the private API: in-VPC consumers get tokens and keys without internet.
      api.addExtraMethod('/oauth2/token', 'POST', new apigateway.HttpIntegration(tokenEndpoint, { httpMethod: 'POST', proxy: true }));
      api.addExtraMethod('/.well-known/jwks.json', 'GET', new apigateway.HttpIntegration(`${issuerUrl}/.well-known/jwks.json`, { httpMethod: 'GET', proxy: true }));
    },
  };
}

/**
 * The embedded issuer: a Lambda (functions/ledger/oidc-issuer.ts) on the ledger API's token, JWKS and
 * discovery paths; `iss` is the ledger API's URL. Not in the VPC whatever the network: it touches no
 * table and needs only KMS and Secrets Manager, and API Gateway invokes it from AWS's side.
 */
export function embeddedIssuer(stack: Stack, functions: FunctionContext, ledgerApiUrl: () => string): LedgerIssuer {
  const signingKey = new kms.Key(stack, 'IssuerSigningKey', {
    keySpec: kms.KeySpec.RSA_2048,
    keyUsage: kms.KeyUsage.SIGN_VERIFY,
    description: `${stack.stackName}: signs ledger consumers' access tokens (RS256), embedded issuer`,
    // Tokens live an hour; a replaced key would only make consumers fetch new ones, but a key is
    // never destroyed by a deploy (its deletion is scheduled by hand, like the wallet's).
    removalPolicy: RemovalPolicy.RETAIN,
  });
  (signingKey.node.defaultChild as kms.CfnKey).overrideLogicalId('IssuerSigningKey');
  // One secret per client, `<prefix><client_id>`: adding a consumer is creating one (docs/ledger-auth.md).
  const clientsPrefix = `${stack.stackName}/ledger-clients/`;
  const walletCredentials = new secretsmanager.Secret(stack, 'WalletLedgerCredentials', {
    secretName: `${clientsPrefix}${EMBEDDED_WALLET_CLIENT}`,
    description: "The wallet's client of the embedded ledger issuer: {client_id, client_secret}",
    generateSecretString: {
      secretStringTemplate: JSON.stringify({ client_id: EMBEDDED_WALLET_CLIENT }),
      generateStringKey: 'client_secret',
      excludePunctuation: true,
      passwordLength: 48,
    },
  });
  Validations.of(walletCredentials).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason:
      'A client secret the issuer and the wallet both read from this secret: rotating is putting a new value (the issuer picks it up within 5 minutes, the wallet when the issuer refuses the old one); there is no rotation Lambda for it.',
  });

  const signs: Capability = {
    key: 'issuer-sign',
    environment: { OIDC_ISSUER_SIGNING_KMS_KEY_ID: signingKey.keyArn },
    grant: (grantee) => signingKey.grant(grantee, 'kms:Sign', 'kms:GetPublicKey'),
  };
  const clientsArn = `arn:${Aws.PARTITION}:secretsmanager:${Aws.REGION}:${Aws.ACCOUNT_ID}:secret:${clientsPrefix}*`;
  const readsClients: Capability = {
    key: 'issuer-clients',
    environment: { OIDC_ISSUER_CLIENTS_PREFIX: clientsPrefix },
    grant: (grantee) => grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [clientsArn] })),
  };
  const roles = new FunctionRoles(stack, 'IssuerRoles');
  const issuer = buildFunction(stack, roles, { ...functions, tables: {} }, {
    name: 'Issuer',
    handler: issuerHandler,
    description: "Ledger consumers' OIDC issuer (client-credentials tokens, JWKS, discovery) where Cognito is not used",
    profile: { tables: {}, capabilities: [signs, readsClients] },
    environment: { OIDC_ISSUER: Lazy.string({ produce: ledgerApiUrl }), OIDC_AUDIENCE: LEDGER_AUDIENCE },
    memoryMb: 256,
  });
  Validations.of(issuer.role).acknowledge({
    id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${clientsPrefix}*]`,
    reason: 'One secret per consumer client, named by its client id under this prefix: the issuer reads the one a token request names, and no other secret.',
  });

  const issuerUrl = Lazy.string({ produce: ledgerApiUrl });
  return {
    kind: 'embedded',
    issuerUrl,
    publicTokenEndpoint: `${issuerUrl}/oauth2/token`,
    walletCredentials,
    walletConsumerSub: EMBEDDED_WALLET_CLIENT,
    attachTo: (api) => {
      const integration = lambdaProxy(issuer.function);
      const paths: [string, string][] = [
        ['/oauth2/token', 'POST'],
        ['/.well-known/jwks.json', 'GET'],
        ['/.well-known/openid-configuration', 'GET'],
      ];
      for (const [path, method] of paths) {
        api.addExtraMethod(path, method, integration);
        issuer.function.addPermission(`InvokeFrom${method}${path.replace(/[^A-Za-z]/g, '')}`, {
          principal: new iam.ServicePrincipal('apigateway.amazonaws.com'),
          sourceArn: api.api.arnForExecuteApi(method, path, '*'),
        });
      }
    },
  };
}
