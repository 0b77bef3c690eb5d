import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type AppProps } from 'aws-cdk-lib';
import { afterAll } from 'vitest';
import * as z from '../../shared/kernel/zod';
import { FunctionCode, repoRoot } from '../../lib/function';
import { LedgerStack } from '../../lib/ledger-stack';
import { WalletStack, type WalletStackProps } from '../../lib/wallet-stack';
import type { AnyRoute, Api, HttpMethod, RouteCapability } from '../../shared/http/route';
import type { QueueDefinition, WorkerDefinition } from '../../shared/workers';

/**
 * Synthesizes the app the way `cdk synth` does (same cdk.json feature flags, stand-in code instead
 * of bundles) and reads the templates back, nested stacks included, so tests assert on what
 * CloudFormation would receive.
 */

export interface Manifest {
  routes?: readonly AnyRoute[];
  workers?: readonly WorkerDefinition[];
  queues?: readonly QueueDefinition[];
}

/** The `context` block of cdk.json: feature flags the CLI would pass to the app. */
const cdkContext = (JSON.parse(readFileSync(join(repoRoot, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }).context;

/**
 * An app whose cloud assembly goes to a folder removed after the test file: an App without an
 * outdir makes a new `cdk.out*` folder in the system's temporary folder and leaves it there, about
 * ten per run of test/infra.
 */
const scratchRoot = mkdtempSync(join(tmpdir(), 'wp-infra-'));
// Registered while the importing test file is collected, so it runs after that file's tests.
afterAll(() => rmSync(scratchRoot, { recursive: true, force: true }));

export const scratchApp = (props: AppProps = {}): App => new App({ ...props, outdir: mkdtempSync(join(scratchRoot, 'cdk.out-')) });

export interface Synthesized {
  app: App;
  ledger: LedgerStack;
  wallet: WalletStack;
  dir: string;
  stacks: { ledger: StackTemplates; wallet: StackTemplates };
}

/** Wallet stack settings a test may vary (IdP, signing key generations). */
export type WalletOptions = Pick<WalletStackProps, 'idp' | 'signingKeys' | 'provisionedConcurrency'>;

/** The name of a gateway's REST API in a stage's stacks (the ledger's in the ledger stack, the others in the wallet's). */
export const restApiName = (stage: string, gateway: string) => `wp-${stage}-${gateway === 'ledger' ? 'ledger' : 'wallet'}-${gateway}`;

/** `context`: what `-c name=value` would add (ledgerIssuer, ledgerVpc, bulkheadScale...). */
export function synthesize(manifest: Manifest = {}, stage = 'test', walletOptions: WalletOptions = {}, context: Record<string, unknown> = {}): Synthesized {
  // Asset and path metadata as the CLI enables them: nested templates are found through the former.
  const app = scratchApp({
    context: { ...cdkContext, skipBundling: true, 'aws:cdk:enable-asset-metadata': true, 'aws:cdk:enable-path-metadata': true, ...context },
  });
  const code = FunctionCode.standIn();
  const ledger = new LedgerStack(app, 'Ledger', { stackName: `wp-${stage}-ledger`, stage, code, ...manifest });
  // As bin/wallet.ts wires them: the ledger stack's alarm topic, and its gateway and table on the stage's dashboard.
  const wallet = new WalletStack(app, 'Wallet', {
    stackName: `wp-${stage}-wallet`,
    stage,
    code,
    ledger: ledger.exports,
    alarmTopic: ledger.alarmTopic,
    watchAlso: { gateways: [{ name: 'ledger', api: ledger.api }], tables: [ledger.table] },
    ...manifest,
    ...walletOptions,
  });
  const assembly = app.synth();
  const read = (stack: LedgerStack | WalletStack) => loadTemplates(assembly.directory, assembly.getStackByName(stack.stackName).templateFile);
  return { app, ledger, wallet, dir: assembly.directory, stacks: { ledger: read(ledger), wallet: read(wallet) } };
}

// ---------------------------------------------------------------------------------------------
// Templates

export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
  DependsOn?: string[];
  Metadata?: Record<string, unknown>;
}

export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
  Parameters?: Record<string, unknown>;
  Outputs?: Record<string, unknown>;
}

export interface NestedTemplate {
  /** Logical id of the AWS::CloudFormation::Stack in the parent. */
  logicalId: string;
  /** Parent values of the nested stack's parameters. */
  parameters: Record<string, unknown>;
  template: CfnTemplate;
}

export interface StackTemplates {
  file: string;
  parent: CfnTemplate;
  nested: NestedTemplate[];
}

function loadTemplates(dir: string, file: string): StackTemplates {
  const parent = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CfnTemplate;
  const nested = Object.entries(parent.Resources)
    .filter(([, resource]) => resource.Type === 'AWS::CloudFormation::Stack')
    .map(([logicalId, resource]) => ({
      logicalId,
      parameters: (resource.Properties?.Parameters ?? {}) as Record<string, unknown>,
      template: JSON.parse(readFileSync(join(dir, resource.Metadata?.['aws:asset:path'] as string), 'utf8')) as CfnTemplate,
    }));
  return { file, parent, nested };
}

export const allTemplates = (stack: StackTemplates): CfnTemplate[] => [stack.parent, ...stack.nested.map((n) => n.template)];

export function resourcesOfType(template: CfnTemplate, type: string): [string, CfnResource][] {
  return Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
}

const refOf = (value: unknown): string | undefined =>
  value && typeof value === 'object' && 'Ref' in value ? String((value as { Ref: unknown }).Ref) : undefined;

const getAttOf = (value: unknown): string | undefined =>
  value && typeof value === 'object' && 'Fn::GetAtt' in value ? String((value as { 'Fn::GetAtt': unknown[] })['Fn::GetAtt'][0]) : undefined;

/** Path of an AWS::ApiGateway::Resource of the parent template, following ParentId up to the root. */
function resourcePath(parent: CfnTemplate, logicalId: string): string {
  const parts: string[] = [];
  let current: string | undefined = logicalId;
  while (current) {
    const resource: CfnResource | undefined = parent.Resources[current];
    if (!resource || resource.Type !== 'AWS::ApiGateway::Resource') throw new Error(`${current} is not an API resource`);
    parts.unshift(String(resource.Properties?.PathPart));
    current = refOf(resource.Properties?.ParentId); // undefined once ParentId is the API's RootResourceId
  }
  return `/${parts.join('/')}`;
}

export interface FoundMethod {
  /** Name of the RestApi the method belongs to. */
  apiName: string;
  path: string;
  httpMethod: string;
  operationName: string | undefined;
  /** Integration target in the same template (the Lambda), if any. */
  function: CfnResource | undefined;
  functionLogicalId: string | undefined;
  template: CfnTemplate;
}

/** Every API Gateway method of a stack and its nested stacks, resolved to API name and path. */
export function methodsOf(stack: StackTemplates): FoundMethod[] {
  const apiName = (logicalId: string | undefined) => String(stack.parent.Resources[logicalId ?? '']?.Properties?.Name);
  const found: FoundMethod[] = [];
  const collect = (template: CfnTemplate, resolve: (value: unknown) => string | undefined, resolveResource: (value: unknown) => string) => {
    for (const [, method] of resourcesOfType(template, 'AWS::ApiGateway::Method')) {
      const props = method.Properties ?? {};
      const uri = JSON.stringify((props.Integration as { Uri?: unknown } | undefined)?.Uri ?? '');
      const functionLogicalId = /"Fn::GetAtt":\["([^"]+)","Arn"\]/.exec(uri)?.[1];
      found.push({
        apiName: apiName(resolve(props.RestApiId)),
        path: resolveResource(props.ResourceId),
        httpMethod: String(props.HttpMethod),
        operationName: props.OperationName as string | undefined,
        function: functionLogicalId ? template.Resources[functionLogicalId] : undefined,
        functionLogicalId,
        template,
      });
    }
  };
  const parentResource = (value: unknown): string => {
    const ref = refOf(value);
    if (ref) return resourcePath(stack.parent, ref);
    if (getAttOf(value)) return '/'; // the API's RootResourceId
    throw new Error(`unexpected ResourceId ${JSON.stringify(value)}`);
  };
  collect(stack.parent, refOf, parentResource);
  for (const nested of stack.nested) {
    const throughParameter = (value: unknown) => nested.parameters[refOf(value) ?? ''];
    collect(
      nested.template,
      (value) => refOf(throughParameter(value)),
      (value) => {
        const passed = throughParameter(value);
        if (passed !== undefined) return parentResource(passed);
        return parentResource(value);
      },
    );
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// A synthetic manifest the size the platform grows to

const empty = z.object({});

/**
 * Capabilities by family, as real areas have them, so both sides of each placement rule exist:
 * the first wallet families and the first console family call the ledger, auth POSTs of the first
 * family sign tokens.
 */
function syntheticCapabilities(api: Api, tag: string, method: HttpMethod): RouteCapability[] {
  if ((api === 'wallet' && ['area0', 'area1', 'area2'].includes(tag)) || (api === 'console' && tag === 'area0')) return ['callsLedger'];
  if (api === 'auth' && tag === 'area0' && method === 'POST') return ['signsTokens'];
  return [];
}

function syntheticRoute(api: Api, tag: string, index: number, method: HttpMethod, path: string): AnyRoute {
  const write = method !== 'GET';
  const table = api === 'ledger' ? 'ledger' : 'wallet';
  const capabilities = syntheticCapabilities(api, tag, method);
  return {
    operationId: `${api}${tag[0]!.toUpperCase()}${tag.slice(1)}${index}`,
    method,
    path,
    api,
    handler: `synthetic/${api}-${tag}-${index}`,
    summary: `Synthetic ${method} ${path}`,
    tags: [tag],
    access: 'public',
    request: {},
    response: { status: 200, body: empty, description: 'ok' },
    errors: [],
    tables: { [table]: write ? 'RW' : 'RO' },
    ...(capabilities.length > 0 ? { capabilities } : {}),
  };
}

/** The nine routes of one REST-ish resource family, like most areas of the spec have. */
function family(api: Api, tag: string): AnyRoute[] {
  const base = `/v1/${api}-${tag}`;
  const shapes: [HttpMethod, string][] = [
    ['GET', base],
    ['POST', base],
    ['GET', `${base}/{id}`],
    ['PATCH', `${base}/{id}`],
    ['DELETE', `${base}/{id}`],
    ['GET', `${base}/{id}/items`],
    ['POST', `${base}/{id}/items`],
    ['GET', `${base}/{id}/items/{itemId}`],
    ['POST', `${base}/{id}/items/{itemId}/cancel`],
  ];
  return shapes.map(([method, path], index) => syntheticRoute(api, tag, index, method, path));
}

/** 130 routes: 45 ledger, 47 wallet, 19 auth, 19 console; families of nine plus four singles. */
export function syntheticRoutes(): AnyRoute[] {
  const spread: [Api, number][] = [
    ['ledger', 5],
    ['wallet', 5],
    ['auth', 2],
    ['console', 2],
  ];
  const routes = spread.flatMap(([api, families]) => Array.from({ length: families }, (_, i) => family(api, `area${i}`)).flat());
  // Top up to exactly 130 with single routes in their own tags.
  const extra: [Api, string][] = [
    ['wallet', 'misc'],
    ['auth', 'misc'],
    ['console', 'misc'],
  ];
  let n = 0;
  while (routes.length < 130) {
    const [api, tag] = extra[n % extra.length]!;
    routes.push(syntheticRoute(api, tag, n, 'GET', `/v1/${api}-${tag}/r${n}`));
    n += 1;
  }
  return routes;
}

export const syntheticQueues: QueueDefinition[] = [{ name: 'webhookDeliveries', visibilityTimeoutSeconds: 120, maxReceiveCount: 5 }];

export const syntheticWorkers: WorkerDefinition[] = [
  {
    name: 'outboxRelay',
    handler: 'synthetic/outbox-relay',
    description: 'Publishes outbox items',
    trigger: { kind: 'stream', table: 'wallet', batchSize: 100 },
    tables: { wallet: 'RW' },
    sendsTo: ['webhookDeliveries'],
    publishesEvents: true,
  },
  {
    name: 'webhookDelivery',
    handler: 'synthetic/webhook-delivery',
    description: 'Delivers webhooks',
    trigger: { kind: 'queue', queue: 'webhookDeliveries', batchSize: 10 },
    tables: { wallet: 'RW' },
    sendsTo: ['webhookDeliveries'],
    timeoutSeconds: 30,
  },
  {
    name: 'subscriptionBilling',
    handler: 'synthetic/subscription-billing',
    description: 'Bills due subscriptions',
    trigger: { kind: 'schedule', rateMinutes: 5 },
    tables: { wallet: 'RW' },
    callsLedger: true,
    publishesEvents: true,
  },
  {
    name: 'pendingExpiry',
    handler: 'synthetic/pending-expiry',
    description: 'Voids expired pendings',
    trigger: { kind: 'schedule', rateMinutes: 1 },
    tables: { ledger: 'RW' },
  },
];

// ---------------------------------------------------------------------------------------------
// Functions and their permissions

export interface FoundFunction {
  logicalId: string;
  fn: CfnResource;
  /** The statements of the policies attached to the function's role, parameters resolved to the parent's values. */
  statements: { Action: string | string[]; Resource: unknown; Effect: string }[];
  env: Record<string, unknown>;
}

/** A nested template's `{Ref: <parameter>}` replaced by what the parent passes in. */
function resolveParameters(value: unknown, parameters: Record<string, unknown>): unknown {
  if (Array.isArray(value)) return value.map((item) => resolveParameters(item, parameters));
  if (value && typeof value === 'object') {
    const ref = refOf(value);
    if (ref !== undefined && ref in parameters) return parameters[ref];
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveParameters(item, parameters)]));
  }
  return value;
}

/** Every Lambda of a stack (nested stacks included) with its role's statements and its environment. */
export function functionsOf(stack: StackTemplates): FoundFunction[] {
  const sources = [{ template: stack.parent, parameters: {} as Record<string, unknown> }, ...stack.nested.map((n) => ({ template: n.template, parameters: n.parameters }))];
  return sources.flatMap(({ template, parameters }) =>
    resourcesOfType(template, 'AWS::Lambda::Function').map(([logicalId, fn]) => {
      const roleId = getAttOf(fn.Properties?.Role);
      const statements = resourcesOfType(template, 'AWS::IAM::Policy')
        .filter(([, policy]) => ((policy.Properties?.Roles ?? []) as unknown[]).some((role) => refOf(role) === roleId))
        .flatMap(([, policy]) => (policy.Properties!.PolicyDocument as { Statement: FoundFunction['statements'] }).Statement)
        .map((statement) => resolveParameters(statement, parameters) as FoundFunction['statements'][number]);
      const env = resolveParameters((fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {}, parameters) as Record<string, unknown>;
      return { logicalId, fn, statements, env };
    }),
  );
}

/** The actions a function's role allows, with the resources of each. */
export function actionsOf(found: FoundFunction): Map<string, unknown[]> {
  const actions = new Map<string, unknown[]>();
  for (const statement of found.statements) {
    if (statement.Effect !== 'Allow') continue;
    for (const action of [statement.Action].flat()) actions.set(action, [...(actions.get(action) ?? []), ...[statement.Resource].flat()]);
  }
  return actions;
}
