import { CfnOutput, Lazy, Stack, type StackProps } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as events from 'aws-cdk-lib/aws-events';
import type { Construct } from 'constructs';
import { gateways } from '../shared/http/gateways';
import type { AnyRoute } from '../shared/http/route';
import { routes as manifestRoutes } from '../shared/routes';
import { walletTable } from '../shared/tables';
import { credentialQueues } from '../shared/wallet/auth/credential-queues';
import {
  queues as manifestQueues,
  queueUrlEnv,
  workers as manifestWorkers,
  type QueueDefinition,
  type WorkerDefinition,
} from '../shared/workers';
import { executeApiDomain, ProjectApi, type ProvisionedConcurrency, type ThrottleSettings } from './api';
import { FunctionCode, type AccessProfile, type Capability, type FunctionContext, type FunctionNetwork } from './function';
import type { LedgerExports } from './ledger-stack';
import { baseEnvironment, isLedgerWorker, routeCallsLedger, routeSignsTokens } from './manifest';
import { signingKeysOf, WalletSigningKeys, type SigningKeyGenerations } from './signing-keys';
import { ProjectTable } from './table';
import { ProjectQueue, Workers } from './workers';
import { AlarmTopic, Monitoring, type GatewayWatch } from './monitoring';
import type * as sns from 'aws-cdk-lib/aws-sns';

/**
 * Everything except the ledger: the public API (wallet + auth), the operators' console API,
 * WalletTable with its stream, the workers, their queues and the `wallet-events` bus.
 */

export interface WalletStackProps extends StackProps {
  stage: string;
  ledger: LedgerExports;
  routes?: readonly AnyRoute[];
  workers?: readonly WorkerDefinition[];
  queues?: readonly QueueDefinition[];
  code?: FunctionCode;
  /** Stage-wide defaults; the spec asks for gateway rate limits with 429 + Retry-After (part 8). */
  publicThrottle?: ThrottleSettings;
  consoleThrottle?: ThrottleSettings;
  /** Token-signing key generations; default `signingKeysOf(stage)` (lib/signing-keys.ts). */
  signingKeys?: SigningKeyGenerations;
  /** The identity provider whose access tokens are wallet credentials; absent, IdP tokens are refused. */
  idp?: IdpSettings;
  /**
   * Provisioned concurrency for latency-critical public routes, by route tag or operationId, e.g.
   * `{ money: 2, payments: 2, orders: 1 }` (transfers are tagged `money`; lib/api.ts ProvisionedConcurrency); none by default.
   * `-c provisionedConcurrency=money:2,payments:2,orders:1` sets it from the CLI (bin/wallet.ts).
   */
  provisionedConcurrency?: ProvisionedConcurrency;
  /** Where the stage's alarms notify (bin/wallet.ts passes the ledger stack's); absent, the stack makes one (lib/monitoring.ts AlarmTopic). */
  alarmTopic?: sns.ITopic;
  /** The stage dashboard also shows these (the ledger's gateway and table). */
  watchAlso?: { gateways: readonly GatewayWatch[]; tables: readonly ProjectTable[] };
}

/** `-c provisionedConcurrency=money:2,payments:2,createOrder:1` (a tag or an operationId each); absent or empty, none. */
export function provisionedConcurrencyFromContext(scope: Construct): ProvisionedConcurrency | undefined {
  const value: unknown = scope.node.tryGetContext('provisionedConcurrency');
  if (value === undefined || value === null || value === '') return undefined;
  const entries = String(value)
    .split(',')
    .filter(Boolean)
    .map((part) => {
      const [name, count] = part.split(':');
      const units = Number(count);
      if (!name || !Number.isInteger(units) || units < 1) throw new Error(`-c provisionedConcurrency takes name:count pairs (transfers:2,payments:2); got ${part}`);
      return [name.trim(), units] as const;
    });
  return Object.fromEntries(entries);
}

/** IDP_ISSUER / IDP_AUDIENCE / IDP_JWKS_URL of the wallet functions. */
export interface IdpSettings {
  /** https; compared exactly with the tokens' `iss`. */
  issuer: string;
  /** Default `wallet`. */
  audience?: string;
  /** Default `<issuer>/.well-known/jwks.json`. */
  jwksUrl?: string;
}

/** `-c idpIssuer=https://... [-c idpAudience=wallet] [-c idpJwksUrl=https://...]`; no idpIssuer, no IdP. */
export function idpFromContext(scope: Construct): IdpSettings | undefined {
  const text = (name: string): string | undefined => {
    const value: unknown = scope.node.tryGetContext(name);
    return value === undefined || value === null || value === '' ? undefined : String(value);
  };
  const [issuer, audience, jwksUrl] = [text('idpIssuer'), text('idpAudience'), text('idpJwksUrl')];
  if (!issuer) {
    if (audience || jwksUrl) throw new Error('idpAudience / idpJwksUrl need idpIssuer');
    return undefined;
  }
  for (const [name, url] of [['idpIssuer', issuer], ['idpJwksUrl', jwksUrl]] as const) {
    if (url !== undefined && !/^https:\/\/[^/\s]+/.test(url)) throw new Error(`${name} must be an https URL: ${url}`);
  }
  return { issuer, ...(audience ? { audience } : {}), ...(jwksUrl ? { jwksUrl } : {}) };
}

export class WalletStack extends Stack {
  readonly table: ProjectTable;
  readonly bus: events.EventBus;
  readonly publicApi: ProjectApi;
  readonly consoleApi: ProjectApi;
  readonly queues = new Map<string, ProjectQueue>();
  readonly workers: Workers;
  readonly signingKeys: WalletSigningKeys;
  /** WALLET_ISSUER: an identifier, not a URL (docs/infrastructure.md). */
  readonly issuer: string;
  readonly monitoring: Monitoring;

  constructor(scope: Construct, id: string, props: WalletStackProps) {
    super(scope, id, props);
    const allRoutes = props.routes ?? manifestRoutes;
    const workers = (props.workers ?? manifestWorkers).filter((worker) => !isLedgerWorker(worker));
    const code = props.code ?? FunctionCode.fromContext(this);
    const ledger = props.ledger;

    this.table = new ProjectTable(this, walletTable);
    // Wallet tokens: `iss` is a stable name rather than the API's URL, which changes with a custom
    // domain or a replaced API; the public keys are served at <public API>/.well-known/jwks.json.
    this.issuer = `urn:wallet:${props.stage}`;
    this.signingKeys = new WalletSigningKeys(this, 'SigningKeys', { generations: props.signingKeys ?? signingKeysOf(props.stage), issuer: this.issuer });
    this.bus = new events.EventBus(this, 'Events', { eventBusName: `wallet-events-${props.stage}`, description: 'Wallet domain events (outbox relay)' });
    for (const definition of props.queues ?? manifestQueues) this.queues.set(definition.name, new ProjectQueue(this, definition));

    // Functions that call the ledger run in the ledger's VPC (isolated subnets) to reach its
    // private API through the execute-api endpoint; their credentials come from Secrets Manager.
    // Without a ledger VPC (-c ledgerVpc=false, LocalStack) they run like every other function.
    const ledgerNetwork = ledger.network;
    const walletSg = ledgerNetwork
      ? new ec2.SecurityGroup(this, 'WalletFunctions', {
          vpc: ledgerNetwork.vpc,
          description: 'Wallet functions that call the ledger: no ingress; egress only reaches the VPC endpoints',
          allowAllOutbound: true,
        })
      : undefined;
    if (ledgerNetwork && walletSg) admit(ledgerNetwork.apiEndpoint, walletSg, 'Wallet functions call the ledger API and the console API');
    const network: FunctionNetwork | undefined =
      ledgerNetwork && walletSg ? { vpc: ledgerNetwork.vpc, subnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED }, securityGroups: [walletSg] } : undefined;
    const ledgerClient: Capability = {
      key: 'ledger-client',
      environment: {
        LEDGER_API_URL: ledger.apiUrl,
        LEDGER_TOKEN_URL: ledger.tokenUrl,
        LEDGER_CREDENTIALS_SECRET_ARN: ledger.walletCredentials.secretArn,
        LEDGER_SCOPES: ledger.scopes.join(' '),
      },
      grant: (grantee) => ledger.walletCredentials.grantRead(grantee),
    };
    const eventBus: Capability = {
      key: 'events',
      environment: { EVENT_BUS_NAME: this.bus.eventBusName },
      grant: (grantee) => this.bus.grantPutEventsTo(grantee),
    };
    const sendTo = (name: string): Capability => {
      const queue = this.queues.get(name);
      if (!queue) throw new Error(`A worker sends to queue ${name}, which shared/workers.ts does not define`);
      return {
        key: `send-${name}`,
        environment: { [queueUrlEnv(name)]: queue.queue.queueUrl },
        grant: (grantee) => queue.queue.grantSendMessages(grantee),
      };
    };

    // A route sends to its own queues and to those its credential hook hands records to.
    const routeQueues = (route: AnyRoute): string[] => [...new Set([...(route.sendsTo ?? []), ...credentialQueues(route)])];

    // Interface endpoints for what in-VPC functions call, and only those.
    const apiRoutes = allRoutes.filter((route) => gateways.public.apis.includes(route.api) || gateways.console.apis.includes(route.api));
    const inVpcRoutes = apiRoutes.filter(routeCallsLedger);
    const inVpcWorkers = workers.filter((worker) => worker.callsLedger);
    const endpoints: [string, ec2.InterfaceVpcEndpointAwsService, boolean][] = [
      ['SecretsManager', ec2.InterfaceVpcEndpointAwsService.SECRETS_MANAGER, inVpcRoutes.length + inVpcWorkers.length > 0],
      // Every route verifies wallet tokens, which needs kms:GetPublicKey (once per container).
      ['Kms', ec2.InterfaceVpcEndpointAwsService.KMS, inVpcRoutes.length > 0],
      ['EventBridge', ec2.InterfaceVpcEndpointAwsService.EVENTBRIDGE, inVpcWorkers.some((worker) => worker.publishesEvents)],
      ['Sqs', ec2.InterfaceVpcEndpointAwsService.SQS, inVpcWorkers.some((worker) => worker.sendsTo?.length) || inVpcRoutes.some((route) => routeQueues(route).length > 0)],
    ];
    for (const [name, service, needed] of endpoints) {
      if (!needed || !ledgerNetwork || !walletSg) continue;
      const endpoint = new ec2.InterfaceVpcEndpoint(this, `${name}Endpoint`, {
        vpc: ledgerNetwork.vpc,
        service,
        privateDnsEnabled: true,
        subnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
        open: false,
      });
      admit(endpoint, walletSg, `Wallet functions call ${name}`);
    }

    const functions: FunctionContext = {
      code,
      environment: baseEnvironment(props.stage),
      tables: { wallet: this.table },
    };
    // Every wallet, auth and console function verifies wallet tokens (or serves their keys); only
    // the routes that mint them may sign.
    const routeProfile = (route: AnyRoute): AccessProfile => {
      const tokens = [this.signingKeys.verify, ...(routeSignsTokens(route) ? [this.signingKeys.sign] : [])];
      const queues = routeQueues(route).map(sendTo);
      return routeCallsLedger(route)
        ? { tables: route.tables, capabilities: [...tokens, ...queues, ledgerClient], ...(network ? { network } : {}) }
        : { tables: route.tables, capabilities: [...tokens, ...queues] };
    };
    // IdP tokens: in-VPC functions cannot reach the IdP, so they read its keys through a relay on
    // the (private) console API, the way ledger functions read Cognito's through the ledger API.
    const idp = props.idp;
    const idpJwksUrl = idp ? (idp.jwksUrl ?? `${idp.issuer.replace(/\/+$/, '')}/.well-known/jwks.json`) : undefined;
    const idpRelayPath = '/.well-known/idp-jwks.json';
    const idpRelayUrl = Lazy.string({ produce: () => `${this.consoleApi.baseUrl}${idpRelayPath}` });
    const idpEnvironment = (route: AnyRoute): Record<string, string> =>
      idp && idpJwksUrl
        ? { IDP_ISSUER: idp.issuer, IDP_AUDIENCE: idp.audience ?? 'wallet', IDP_JWKS_URL: routeCallsLedger(route) && network ? idpRelayUrl : idpJwksUrl }
        : {};
    // The dashboard (GET /dashboard on the console API) calls the wallet and auth APIs across
    // origins: their functions and the public fallback (preflights) answer the console's origin
    // only (shared/http/cors.ts), and the dashboard page is told the public API's address.
    const dashboardOrigin = Lazy.string({ produce: () => `https://${this.consoleApi.api.restApiId}.execute-api.${executeApiDomain(this)}` });
    const publicEnvironment = (route: AnyRoute): Record<string, string> => ({ ...idpEnvironment(route), DASHBOARD_ORIGIN: dashboardOrigin });
    const consoleEnvironment = (route: AnyRoute): Record<string, string> => ({
      ...idpEnvironment(route),
      ...(route.handler === 'platform/dashboard' ? { WALLET_PUBLIC_URL: this.publicApi.baseUrl } : {}),
    });

    this.publicApi = new ProjectApi(this, 'PublicApi', {
      gateway: 'public',
      ...(props.provisionedConcurrency ? { provisionedConcurrency: props.provisionedConcurrency } : {}),
      routes: allRoutes.filter((route) => gateways.public.apis.includes(route.api)),
      endpoint: { kind: 'regional' },
      stageName: props.stage,
      throttle: props.publicThrottle ?? gateways.public.throttle ?? undefined,
      functions,
      profileFor: routeProfile,
      environmentFor: publicEnvironment,
      fallbackEnvironment: { DASHBOARD_ORIGIN: dashboardOrigin },
      accountLogging: ledger.apiGatewayLogging,
    });

    // Console: PRIVATE, through the same execute-api endpoint as the ledger. Operators reach it
    // from inside the VPC (Client VPN or SSM port forwarding), so the console has no internet
    // surface at all, and its functions keep the same in-function staff authentication.
    // (REGIONAL only without a ledger VPC: stage local on LocalStack.)
    this.consoleApi = new ProjectApi(this, 'ConsoleApi', {
      gateway: 'console',
      routes: allRoutes.filter((route) => gateways.console.apis.includes(route.api)),
      endpoint: ledgerNetwork ? { kind: 'private', vpcEndpoint: ledgerNetwork.apiEndpoint } : { kind: 'regional' },
      stageName: props.stage,
      throttle: props.consoleThrottle ?? gateways.console.throttle ?? undefined,
      functions,
      profileFor: routeProfile,
      environmentFor: consoleEnvironment,
      accountLogging: ledger.apiGatewayLogging,
    });
    if (idpJwksUrl && network && inVpcRoutes.length > 0) {
      this.consoleApi.addExtraMethod(idpRelayPath, 'GET', new apigateway.HttpIntegration(idpJwksUrl, { httpMethod: 'GET', proxy: true }));
    }

    this.workers = new Workers(this, 'Workers', {
      stage: props.stage,
      workers,
      functions,
      queues: this.queues,
      profileFor: (worker) => ({
        tables: worker.tables,
        capabilities: [
          ...(worker.callsLedger ? [ledgerClient] : []),
          ...(worker.publishesEvents ? [eventBus] : []),
          ...(worker.sendsTo ?? []).map(sendTo),
        ],
        ...(worker.callsLedger && network ? { network } : {}),
      }),
    });

    this.monitoring = new Monitoring(this, 'Monitoring', {
      stage: props.stage,
      alarmTopic: props.alarmTopic ?? new AlarmTopic(this, 'Alarms', { stage: props.stage }).topic,
      gateways: [
        { name: 'public', api: this.publicApi },
        { name: 'console', api: this.consoleApi },
      ],
      tables: [this.table],
      queues: [...this.queues.values()],
      workers: this.workers,
      lambdaThrottles: true,
      // LocalStack (stage local) has no CloudFormation provider for dashboards.
      ...(props.stage === 'local' ? {} : { dashboard: props.watchAlso ?? { gateways: [], tables: [] } }),
    });

    new CfnOutput(this, 'PublicApiUrl', { value: this.publicApi.baseUrl });
    new CfnOutput(this, 'ConsoleApiUrl', { value: this.consoleApi.baseUrl, description: ledgerNetwork ? 'Private: resolves only inside the VPC' : 'Regional: no ledger VPC (-c ledgerVpc=false)' });
    new CfnOutput(this, 'EventBusName', { value: this.bus.eventBusName });
    new CfnOutput(this, 'WalletIssuer', { value: this.issuer, description: 'iss of wallet-issued tokens; keys at <PublicApiUrl>/.well-known/jwks.json' });
    new CfnOutput(this, 'TokenSigningKeyArn', { value: this.signingKeys.current.keyArn, description: 'The KMS key that signs wallet tokens now' });
  }
}

/**
 * Admits `caller` to an interface endpoint on 443. The rule is a resource of the caller's stack
 * (remoteRule), so the ledger stack that owns the endpoint never depends on the wallet stack.
 */
function admit(endpoint: ec2.IInterfaceVpcEndpoint, caller: ec2.ISecurityGroup, description: string): void {
  for (const group of endpoint.connections.securityGroups) group.addIngressRule(caller, ec2.Port.tcp(443), description, true);
}
