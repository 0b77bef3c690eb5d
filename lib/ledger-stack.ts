import { CfnOutput, Lazy, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct, type IDependable } from 'constructs';
import { gateways } from '../shared/http/gateways';
import type { AnyRoute } from '../shared/http/route';
import { routes as manifestRoutes } from '../shared/routes';
import { ledgerTable } from '../shared/tables';
import { workers as manifestWorkers, type WorkerDefinition } from '../shared/workers';
import { ProjectApi } from './api';
import { FunctionCode, type FunctionContext, type FunctionNetwork } from './function';
import { cognitoIssuer, embeddedIssuer, LEDGER_AUDIENCE, LEDGER_SCOPE, ledgerIssuerOf, ledgerVpcOf, type LedgerIssuer, type LedgerIssuerKind } from './ledger-issuer';
import { baseEnvironment, isLedgerWorker, routeCapabilities } from './manifest';
import { ProjectTable } from './table';
import { Workers } from './workers';
import { AlarmTopic, Monitoring } from './monitoring';
import type * as sns from 'aws-cdk-lib/aws-sns';

export { LEDGER_AUDIENCE, LEDGER_SCOPE } from './ledger-issuer';

/**
 * The ledger as its own deployable area: its network, its database, its private API and the OIDC
 * issuer its consumers get tokens from. Only ledger functions can touch LedgerTable; the wallet
 * reaches the ledger over HTTP with a client-credentials token like any outside consumer.
 */

export interface LedgerStackProps extends StackProps {
  /** Deployment stage (dev, prod...): the API stage name and STAGE in every function. */
  stage: string;
  routes?: readonly AnyRoute[];
  workers?: readonly WorkerDefinition[];
  code?: FunctionCode;
  /** Default `-c ledgerIssuer` (lib/ledger-issuer.ts): embedded for stage local, Cognito otherwise. */
  issuer?: LedgerIssuerKind;
  /** Default `-c ledgerVpc`: true, except for stage local (LocalStack). */
  inVpc?: boolean;
  /** Where the stage's alarms notify (bin/wallet.ts: `-c alarmTopicArn=`); absent, the stack makes one (lib/monitoring.ts AlarmTopic). */
  alarmTopic?: sns.ITopic;
}

/** The ledger's network, when it has one: the VPC and the execute-api endpoint its PRIVATE APIs admit. */
export interface LedgerNetwork {
  vpc: ec2.IVpc;
  /** The execute-api interface endpoint; private APIs admit requests only through it. */
  apiEndpoint: ec2.IInterfaceVpcEndpoint;
}

/** What the wallet stack needs from the ledger. */
export interface LedgerExports {
  /** Absent with `-c ledgerVpc=false` (LocalStack): no VPC, REGIONAL APIs. */
  network?: LedgerNetwork;
  /** https://<api>.execute-api.<region>.<suffix>/<stage> (resolves through the endpoint's private DNS). */
  apiUrl: string;
  /** The client-credentials token endpoint reachable from the isolated subnets (on the ledger API). */
  tokenUrl: string;
  /** `{client_id, client_secret}` of the wallet's ledger consumer client. */
  walletCredentials: secretsmanager.ISecret;
  scopes: readonly string[];
  /** API Gateway's account-level CloudWatch role; stages with execution logs depend on it. */
  apiGatewayLogging: IDependable;
}

export class LedgerStack extends Stack {
  readonly table: ProjectTable;
  readonly vpc: ec2.Vpc | undefined;
  readonly api: ProjectApi;
  readonly issuer: LedgerIssuer;
  readonly exports: LedgerExports;
  /** The stage's alarm topic (the one given, or this stack's own). */
  readonly alarmTopic: sns.ITopic;
  readonly monitoring: Monitoring;

  constructor(scope: Construct, id: string, props: LedgerStackProps) {
    super(scope, id, props);
    const routes = (props.routes ?? manifestRoutes).filter((route) => gateways.ledger.apis.includes(route.api));
    // Refuses wallet-side capabilities on ledger routes: the ledger neither signs wallet tokens nor calls itself.
    for (const route of routes) routeCapabilities(route);
    const workers = (props.workers ?? manifestWorkers).filter(isLedgerWorker);
    const code = props.code ?? FunctionCode.fromContext(this);
    const issuerKind = props.issuer ?? ledgerIssuerOf(this, props.stage);
    const inVpc = props.inVpc ?? ledgerVpcOf(this, props.stage);

    const isolated = inVpc ? this.isolatedNetwork() : undefined;
    this.vpc = isolated?.vpc;
    const network = isolated?.functions;

    this.table = new ProjectTable(this, ledgerTable);
    const apiGatewayLogging = new ApiGatewayAccountLogging(this, 'ApiGatewayAccountLogging');
    const functions: FunctionContext = {
      code,
      environment: baseEnvironment(props.stage),
      tables: { ledger: this.table },
    };
    // Lazy because the API's id exists only once the API does.
    const apiUrl = () => this.api.baseUrl;
    this.issuer = issuerKind === 'embedded' ? embeddedIssuer(this, functions, apiUrl) : cognitoIssuer(this, props.stage);

    // The ledger's functions fetch the issuer's keys through their own API: the embedded issuer is
    // there, and the isolated subnets cannot reach Cognito, which offers no PrivateLink for its JWKS
    // or token endpoints (the relay on the API reaches it from AWS's side).
    const jwksUrl = Lazy.string({ produce: () => `${this.api.baseUrl}/.well-known/jwks.json` });
    this.api = new ProjectApi(this, 'LedgerApi', {
      gateway: 'ledger',
      routes,
      endpoint: isolated ? { kind: 'private', vpcEndpoint: isolated.apiEndpoint } : { kind: 'regional' },
      stageName: props.stage,
      // Spec part 8: no rate limits on the ledger API (only the account-level limit applies).
      functions,
      profileFor: (route) => ({ tables: route.tables, capabilities: [], ...(network ? { network } : {}) }),
      environmentFor: () => ({ OIDC_ISSUER: this.issuer.issuerUrl, OIDC_AUDIENCE: LEDGER_AUDIENCE, OIDC_JWKS_URL: jwksUrl }),
      accountLogging: apiGatewayLogging,
    });
    this.issuer.attachTo(this.api);

    const ledgerWorkers = new Workers(this, 'Workers', {
      stage: props.stage,
      workers,
      functions,
      queues: new Map(),
      profileFor: (worker) => ({ tables: worker.tables, capabilities: [], ...(network ? { network } : {}) }),
    });

    this.alarmTopic = props.alarmTopic ?? new AlarmTopic(this, 'Alarms', { stage: props.stage }).topic;
    this.monitoring = new Monitoring(this, 'Monitoring', {
      stage: props.stage,
      alarmTopic: this.alarmTopic,
      gateways: [{ name: 'ledger', api: this.api }],
      tables: [this.table],
      queues: [],
      workers: ledgerWorkers,
    });

    this.exports = {
      ...(isolated ? { network: { vpc: isolated.vpc, apiEndpoint: isolated.apiEndpoint } } : {}),
      apiUrl: this.api.baseUrl,
      tokenUrl: `${this.api.baseUrl}/oauth2/token`,
      walletCredentials: this.issuer.walletCredentials,
      scopes: [`${LEDGER_AUDIENCE}/${LEDGER_SCOPE}`],
      apiGatewayLogging,
    };

    new CfnOutput(this, 'LedgerApiUrl', { value: this.api.baseUrl, description: isolated ? 'Private: resolves only inside the VPC' : 'Regional: no VPC (-c ledgerVpc=false)' });
    new CfnOutput(this, 'OidcIssuer', { value: this.issuer.issuerUrl, description: `The ledger consumers' token issuer (${this.issuer.kind})` });
    new CfnOutput(this, 'TokenEndpoint', {
      value: this.issuer.publicTokenEndpoint,
      description: this.issuer.kind === 'cognito' ? 'Public Cognito token endpoint (for consumers outside the VPC)' : "The embedded issuer's token endpoint, on the ledger API",
    });
    new CfnOutput(this, 'WalletConsumerSub', {
      value: this.issuer.walletConsumerSub,
      description: 'Register the wallet as a ledger consumer with this OIDC sub (the sub of its tokens is its client id)',
    });
    new CfnOutput(this, 'WalletCredentialsSecretArn', { value: this.issuer.walletCredentials.secretArn });
    new CfnOutput(this, 'LedgerTableName', { value: this.table.table.tableName, description: 'LEDGER_TABLE for npm run ledger:consumers (registering consumers)' });
  }

  /**
   * Isolated subnets only: nothing here can reach the internet; AWS services are reached through
   * endpoints (DynamoDB gateway, execute-api interface).
   */
  private isolatedNetwork(): { vpc: ec2.Vpc; apiEndpoint: ec2.InterfaceVpcEndpoint; functions: FunctionNetwork } {
    const flowLogs = new logs.LogGroup(this, 'VpcFlowLogs', { retention: logs.RetentionDays.ONE_YEAR });
    const vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 24 }],
      flowLogs: { All: { destination: ec2.FlowLogDestination.toCloudWatchLogs(flowLogs), trafficType: ec2.FlowLogTrafficType.ALL } },
    });
    vpc.addGatewayEndpoint('DynamoDb', { service: ec2.GatewayVpcEndpointAwsService.DYNAMODB });
    const apiEndpoint = vpc.addInterfaceEndpoint('ExecuteApi', {
      service: ec2.InterfaceVpcEndpointAwsService.APIGATEWAY,
      privateDnsEnabled: true,
      // No blanket VPC-wide ingress: each caller's security group is admitted by name (below, and
      // by the wallet stack), so a new in-VPC consumer is a reviewed change.
      open: false,
    });
    const functionsSg = new ec2.SecurityGroup(this, 'LedgerFunctions', {
      vpc,
      description: 'Ledger functions: no ingress; egress can only reach the VPC endpoints (no NAT, no internet gateway)',
      allowAllOutbound: true,
    });
    // Ledger functions call their own private API for the issuer's keys.
    apiEndpoint.connections.allowFrom(functionsSg, ec2.Port.tcp(443), 'Ledger functions fetch the issuer keys through the ledger API');
    return { vpc, apiEndpoint, functions: { vpc, subnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED }, securityGroups: [functionsSg] } };
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
