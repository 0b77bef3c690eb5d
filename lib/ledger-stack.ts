import { CfnOutput, Duration, Fn, Lazy, RemovalPolicy, SecretValue, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct, type IDependable } from 'constructs';
import { gateways } from '../shared/http/gateways';
import type { AnyRoute } from '../shared/http/route';
import { routes as manifestRoutes } from '../shared/routes';
import { ledgerTable } from '../shared/tables';
import { workers as manifestWorkers, type WorkerDefinition } from '../shared/workers';
import { ProjectApi } from './api';
import { FunctionCode, type FunctionContext, type FunctionNetwork } from './function';
import { baseEnvironment, isLedgerWorker, routeCapabilities } from './manifest';
import { ProjectTable } from './table';
import { Workers } from './workers';

/**
 * The ledger as its own deployable area: its network, its database, its private API and the OIDC
 * issuer its consumers get tokens from. Only ledger functions can touch LedgerTable; the wallet
 * reaches the ledger over HTTP with a client-credentials token like any outside consumer.
 */

/** Resource server of the consumer pool: tokens carry `scope: ledger/postings`, no `aud`. */
export const LEDGER_AUDIENCE = 'ledger';
export const LEDGER_SCOPE = 'postings';

export interface LedgerStackProps extends StackProps {
  /** Deployment stage (dev, prod...): the API stage name and STAGE in every function. */
  stage: string;
  routes?: readonly AnyRoute[];
  workers?: readonly WorkerDefinition[];
  code?: FunctionCode;
}

/** What the wallet stack needs from the ledger. */
export interface LedgerExports {
  vpc: ec2.IVpc;
  /** The execute-api interface endpoint; private APIs admit requests only through it. */
  apiEndpoint: ec2.IInterfaceVpcEndpoint;
  /** https://<api>.execute-api.<region>.<suffix>/<stage> (resolves through the endpoint's private DNS). */
  apiUrl: string;
  /** The client-credentials token endpoint reachable from the isolated subnets (relayed by the ledger API). */
  tokenUrl: string;
  /** `{client_id, client_secret}` of the wallet's ledger consumer client. */
  walletCredentials: secretsmanager.ISecret;
  walletClient: cognito.IUserPoolClient;
  scopes: readonly string[];
  /** API Gateway's account-level CloudWatch role; stages with execution logs depend on it. */
  apiGatewayLogging: IDependable;
}

export class LedgerStack extends Stack {
  readonly table: ProjectTable;
  readonly vpc: ec2.Vpc;
  readonly api: ProjectApi;
  readonly userPool: cognito.UserPool;
  readonly exports: LedgerExports;

  constructor(scope: Construct, id: string, props: LedgerStackProps) {
    super(scope, id, props);
    const routes = (props.routes ?? manifestRoutes).filter((route) => gateways.ledger.apis.includes(route.api));
    // Refuses wallet-side capabilities on ledger routes: the ledger neither signs wallet tokens nor calls itself.
    for (const route of routes) routeCapabilities(route);
    const workers = (props.workers ?? manifestWorkers).filter(isLedgerWorker);
    const code = props.code ?? FunctionCode.fromContext(this);

    // Network: isolated subnets only. Nothing here can reach the internet; AWS services are reached
    // through endpoints (DynamoDB gateway, execute-api interface).
    const flowLogs = new logs.LogGroup(this, 'VpcFlowLogs', { retention: logs.RetentionDays.ONE_YEAR });
    this.vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 24 }],
      flowLogs: { All: { destination: ec2.FlowLogDestination.toCloudWatchLogs(flowLogs), trafficType: ec2.FlowLogTrafficType.ALL } },
    });
    this.vpc.addGatewayEndpoint('DynamoDb', { service: ec2.GatewayVpcEndpointAwsService.DYNAMODB });
    const apiEndpoint = this.vpc.addInterfaceEndpoint('ExecuteApi', {
      service: ec2.InterfaceVpcEndpointAwsService.APIGATEWAY,
      privateDnsEnabled: true,
      // No blanket VPC-wide ingress: each caller's security group is admitted by name (below, and
      // by the wallet stack), so a new in-VPC consumer is a reviewed change.
      open: false,
    });
    const functionsSg = new ec2.SecurityGroup(this, 'LedgerFunctions', {
      vpc: this.vpc,
      description: 'Ledger functions: no ingress; egress can only reach the VPC endpoints (no NAT, no internet gateway)',
      allowAllOutbound: true,
    });
    // Ledger functions call their own private API for the issuer's keys (identity relay below).
    apiEndpoint.connections.allowFrom(functionsSg, ec2.Port.tcp(443), 'Ledger functions fetch the issuer keys through the ledger API');
    const network: FunctionNetwork = {
      vpc: this.vpc,
      subnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
      securityGroups: [functionsSg],
    };

    this.table = new ProjectTable(this, ledgerTable);

    // OIDC issuer for ledger consumers (client-credentials only; no human users).
    this.userPool = new cognito.UserPool(this, 'Consumers', {
      userPoolName: `${this.stackName}-consumers`,
      selfSignUpEnabled: false,
      // No one signs in here; should a user ever be added, the strictest settings apply.
      mfa: cognito.Mfa.REQUIRED,
      mfaSecondFactor: { otp: true, sms: false },
      passwordPolicy: { minLength: 14, requireDigits: true, requireLowercase: true, requireUppercase: true, requireSymbols: true },
      accountRecovery: cognito.AccountRecovery.NONE,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.userPool).acknowledge({
      id: 'AwsSolutions-COG8',
      reason:
        'The pool has no human users: it only issues client-credentials tokens to ledger consumers, and the Plus plan adds threat protection for user sign-ins, which never happen here.',
    });
    const postings = new cognito.ResourceServerScope({ scopeName: LEDGER_SCOPE, scopeDescription: 'Call the ledger API as a registered consumer' });
    const resourceServer = this.userPool.addResourceServer('LedgerApi', { identifier: LEDGER_AUDIENCE, scopes: [postings] });
    const domain = this.userPool.addDomain('Domain', {
      cognitoDomain: { domainPrefix: Fn.join('-', ['wallet-ledger', props.stage, this.account]) },
    });
    const walletClient = this.userPool.addClient('WalletClient', {
      userPoolClientName: 'wallet',
      generateSecret: true,
      oAuth: { flows: { clientCredentials: true }, scopes: [cognito.OAuthScope.resourceServer(resourceServer, postings)] },
      accessTokenValidity: Duration.hours(1),
      enableTokenRevocation: true,
      preventUserExistenceErrors: true,
    });
    const walletCredentials = new secretsmanager.Secret(this, 'WalletLedgerCredentials', {
      description: 'The wallet\'s ledger consumer client: {client_id, client_secret} for the client-credentials grant',
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

    const apiGatewayLogging = new ApiGatewayAccountLogging(this, 'ApiGatewayAccountLogging');

    const issuer = this.userPool.userPoolProviderUrl;
    const tokenEndpoint = `${domain.baseUrl()}/oauth2/token`;
    const apiStageName = props.stage;
    const functions: FunctionContext = {
      code,
      environment: baseEnvironment(props.stage),
      tables: { ledger: this.table },
    };

    // The ledger's functions fetch the issuer's keys through their own private API (the relay
    // below): the isolated subnets cannot reach Cognito, which offers no PrivateLink for its JWKS
    // or token endpoints. Lazy because the API's id exists only once the API does.
    const jwksUrl = Lazy.string({ produce: () => `${this.api.baseUrl}/.well-known/jwks.json` });
    this.api = new ProjectApi(this, 'LedgerApi', {
      gateway: 'ledger',
      routes,
      endpoint: { kind: 'private', vpcEndpoint: apiEndpoint },
      stageName: apiStageName,
      // Spec part 8: no rate limits on the ledger API (only the account-level limit applies).
      functions,
      profileFor: (route) => ({ tables: route.tables, capabilities: [], network }),
      environmentFor: () => ({ OIDC_ISSUER: issuer, OIDC_AUDIENCE: LEDGER_AUDIENCE, OIDC_JWKS_URL: jwksUrl }),
      accountLogging: apiGatewayLogging,
    });
    // Identity relay on the private API: in-VPC consumers get tokens and keys without internet.
    this.api.addExtraMethod('/oauth2/token', 'POST', new apigateway.HttpIntegration(tokenEndpoint, { httpMethod: 'POST', proxy: true }));
    this.api.addExtraMethod('/.well-known/jwks.json', 'GET', new apigateway.HttpIntegration(`${issuer}/.well-known/jwks.json`, { httpMethod: 'GET', proxy: true }));

    new Workers(this, 'Workers', {
      stage: props.stage,
      workers,
      functions,
      queues: new Map(),
      profileFor: (worker) => ({ tables: worker.tables, capabilities: [], network }),
    });

    this.exports = {
      vpc: this.vpc,
      apiEndpoint,
      apiUrl: this.api.baseUrl,
      tokenUrl: `${this.api.baseUrl}/oauth2/token`,
      walletCredentials,
      walletClient,
      scopes: [`${LEDGER_AUDIENCE}/${LEDGER_SCOPE}`],
      apiGatewayLogging,
    };

    new CfnOutput(this, 'LedgerApiUrl', { value: this.api.baseUrl, description: 'Private: resolves only inside the VPC' });
    new CfnOutput(this, 'OidcIssuer', { value: issuer });
    new CfnOutput(this, 'TokenEndpoint', { value: tokenEndpoint, description: 'Public Cognito token endpoint (for consumers outside the VPC)' });
    new CfnOutput(this, 'WalletConsumerSub', {
      value: walletClient.userPoolClientId,
      description: 'Register the wallet as a ledger consumer with this OIDC sub (Cognito sets sub = client id)',
    });
    new CfnOutput(this, 'WalletCredentialsSecretArn', { value: walletCredentials.secretArn });
  }
}

/**
 * API Gateway writes execution logs with one role per account and region. It is a singleton, so it
 * lives here once (the ledger deploys first) rather than in every RestApi.
 */
export class ApiGatewayAccountLogging extends Construct {
  readonly account: apigateway.CfnAccount;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('apigateway.amazonaws.com'),
      managedPolicies: [iam.ManagedPolicy.fromAwsManagedPolicyName('service-role/AmazonAPIGatewayPushToCloudWatchLogs')],
    });
    role.applyRemovalPolicy(RemovalPolicy.RETAIN);
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason: 'The AWS-documented policy for the account-level API Gateway logging role; it only creates and writes API Gateway log groups.',
    });
    this.account = new apigateway.CfnAccount(this, 'Account', { cloudWatchRoleArn: role.roleArn });
    // Other stacks' stages rely on this setting; deleting this stack must not switch their logging off.
    this.account.applyRemovalPolicy(RemovalPolicy.RETAIN);
  }
}
