import { beforeAll, describe, expect, it } from 'vitest';
import { gatewayOf } from '../../shared/http/gateways';
import type { AnyRoute } from '../../shared/http/route';
import { queueUrlEnv } from '../../shared/workers';
import { unacknowledgedFindings } from './nag';
import { allTemplates, methodsOf, resourcesOfType, synthesize, syntheticQueues, syntheticRoutes, syntheticWorkers, type CfnResource, type CfnTemplate, type FoundMethod, type Synthesized, restApiName } from './support';

/**
 * The platform at the size it grows to: 130 routes over the four APIs and one worker of each
 * trigger kind, synthesized once. Proves the layout stays under CloudFormation's limits and that
 * the placement rules hold for routes the real manifest does not have yet (console routes).
 */
const routes = syntheticRoutes();
let synth: Synthesized;
let methods: FoundMethod[];

beforeAll(() => {
  synth = synthesize({ routes, workers: syntheticWorkers, queues: syntheticQueues }, 'scale');
  methods = [...methodsOf(synth.stacks.ledger), ...methodsOf(synth.stacks.wallet)];
});

const templates = (): CfnTemplate[] => [synth.stacks.ledger, synth.stacks.wallet].flatMap(allTemplates);
const routeFunction = (route: AnyRoute): CfnResource => methods.find((m) => m.operationName === route.operationId)!.function!;
const env = (fn: CfnResource) => (fn.Properties?.Environment as { Variables: Record<string, unknown> }).Variables;

describe('130 routes', () => {
  it('synthesize with every stack and nested stack under 500 resources (and 200 parameters)', () => {
    const counts = [synth.stacks.ledger, synth.stacks.wallet].flatMap((stack) => [
      [stack.file, stack.parent],
      ...stack.nested.map((n) => [`${stack.file} > ${n.logicalId}`, n.template] as const),
    ]) as [string, CfnTemplate][];
    for (const [name, template] of counts) {
      expect(Object.keys(template.Resources).length, name).toBeLessThan(500);
      expect(Object.keys(template.Parameters ?? {}).length, name).toBeLessThan(200);
    }
    expect(routes).toHaveLength(130);
  });

  it('give every route a method on its gateway API and its own Lambda', () => {
    for (const route of routes) {
      const found = methods.filter((m) => m.operationName === route.operationId);
      expect(found, route.operationId).toHaveLength(1);
      expect(found[0]).toMatchObject({ apiName: restApiName('scale', gatewayOf(route.api)), path: route.path, httpMethod: route.method });
      expect(found[0]!.function?.Type).toBe('AWS::Lambda::Function');
    }
    const templateIndex = new Map(templates().map((template, index) => [template, index]));
    const functions = new Set(methods.filter((m) => m.operationName).map((m) => `${templateIndex.get(m.template)}:${m.functionLogicalId}`));
    expect(functions.size).toBe(routes.length);
  });

  it('keep console routes off the public API and put them on a private API behind the ledger VPC endpoint', () => {
    const consoleRoutes = routes.filter((route) => route.api === 'console');
    expect(consoleRoutes.length).toBeGreaterThan(0);
    const publicMethods = methods.filter((m) => m.apiName === restApiName('scale', 'public'));
    expect(publicMethods.filter((m) => consoleRoutes.some((r) => r.operationId === m.operationName))).toEqual([]);
    expect(publicMethods.filter((m) => consoleRoutes.some((r) => r.path === m.path))).toEqual([]);

    const consoleApi = resourcesOfType(synth.stacks.wallet.parent, 'AWS::ApiGateway::RestApi').find(([, a]) => a.Properties?.Name === restApiName('scale', 'console'))![1];
    expect(consoleApi.Properties?.EndpointConfiguration).toMatchObject({ Types: ['PRIVATE'] });
    // The endpoint is the ledger stack's, imported.
    expect(JSON.stringify(consoleApi.Properties?.EndpointConfiguration)).toContain('Fn::ImportValue');
    expect(JSON.stringify(consoleApi.Properties?.Policy)).toContain('aws:SourceVpce');
  });

  it('send unrouted paths and methods to one fallback Lambda per API with a single permission', () => {
    for (const gateway of ['public', 'ledger', 'console'] as const) {
      const served = routes.filter((route) => gatewayOf(route.api) === gateway);
      const anyMethods = methods.filter((m) => m.apiName === restApiName('scale', gateway) && m.httpMethod === 'ANY');
      const paths = new Set(anyMethods.map((m) => m.path));
      expect(paths.has('/{proxy+}'), gateway).toBe(true);
      for (const route of served) expect(paths.has(route.path), `${gateway} ${route.path}`).toBe(true);
      const targets = new Set(anyMethods.map((m) => m.functionLogicalId));
      expect(targets.size, gateway).toBe(1);
      const fallbackId = [...targets][0]!;
      const stack = gateway === 'ledger' ? synth.stacks.ledger : synth.stacks.wallet;
      const permissions = resourcesOfType(stack.parent, 'AWS::Lambda::Permission').filter(
        ([, p]) => JSON.stringify(p.Properties?.FunctionName).includes(fallbackId),
      );
      expect(permissions, gateway).toHaveLength(1);
      expect(JSON.stringify(permissions[0]![1].Properties?.SourceArn)).toContain('/*/*/*');
      expect(env(stack.parent.Resources[fallbackId]!).GATEWAY_NAME).toBe(gateway);
    }
  });

  it('give a read-only route no write action on its table', () => {
    const readOnly = routes.find((route) => route.api === 'wallet' && route.method === 'GET')!;
    const fn = routeFunction(readOnly);
    const roleId = (fn.Properties?.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]!;
    const template = methods.find((m) => m.operationName === readOnly.operationId)!.template;
    const policies = resourcesOfType(template, 'AWS::IAM::Policy').filter(([, p]) => JSON.stringify(p.Properties?.Roles).includes(roleId));
    const actions = policies.flatMap(([, p]) => (p.Properties!.PolicyDocument as { Statement: { Action: string | string[] }[] }).Statement.flatMap((s) => s.Action));
    expect(actions).toContain('dynamodb:Query');
    expect(actions.filter((action) => action.startsWith('dynamodb:') && /Put|Update|Delete|Write/.test(action))).toEqual([]);
  });

  it('place exactly the callsLedger routes in the VPC with the ledger client settings, the others outside it', () => {
    const walletSide = routes.filter((r) => r.api !== 'ledger');
    const callsLedger = (route: AnyRoute) => route.capabilities?.includes('callsLedger') === true;
    expect(walletSide.some(callsLedger) && walletSide.some((route) => !callsLedger(route))).toBe(true);
    for (const route of walletSide) {
      const fn = routeFunction(route);
      expect(fn.Properties?.VpcConfig !== undefined, route.operationId).toBe(callsLedger(route));
      expect('LEDGER_API_URL' in env(fn), route.operationId).toBe(callsLedger(route));
      expect('WALLET_SIGNING_KMS_KEY_ID' in env(fn), route.operationId).toBe(true);
    }
  });

  it('share execution roles: far fewer roles than functions', () => {
    const roles = templates().flatMap((t) => resourcesOfType(t, 'AWS::IAM::Role')).length;
    const functions = templates().flatMap((t) => resourcesOfType(t, 'AWS::Lambda::Function')).length;
    expect(functions).toBeGreaterThan(routes.length);
    expect(roles).toBeLessThan(functions / 3);
  });
});

describe('function roles', () => {
  it('use Resource "*" only for actions without resource-level permissions (X-Ray, ListStreams)', () => {
    const allowed = new Set(['xray:PutTraceSegments', 'xray:PutTelemetryRecords', 'dynamodb:ListStreams']);
    for (const template of templates()) {
      for (const [id, policy] of resourcesOfType(template, 'AWS::IAM::Policy')) {
        if (!JSON.stringify(policy.Properties?.Roles).match(/Roles/)) continue; // only our FunctionRoles
        for (const statement of (policy.Properties!.PolicyDocument as { Statement: { Action: string | string[]; Resource: unknown }[] }).Statement) {
          const resources = [statement.Resource].flat();
          if (!resources.includes('*')) continue;
          for (const action of [statement.Action].flat()) expect(allowed.has(action), `${id}: ${action}`).toBe(true);
        }
      }
    }
  });
});

describe('workers', () => {
  const parent = () => synth.stacks.wallet.parent;
  const workerFunction = (name: string, template = parent()): [string, CfnResource] =>
    resourcesOfType(template, 'AWS::Lambda::Function').find(([, fn]) => String(fn.Properties?.Description).includes(`synthetic/${name}`))!;

  it('read the wallet table stream with failures parked on an SQS destination', () => {
    const [fnId] = workerFunction('outbox-relay');
    const [[, mapping]] = resourcesOfType(parent(), 'AWS::Lambda::EventSourceMapping').filter(([, m]) => JSON.stringify(m.Properties?.FunctionName).includes(fnId)) as [[string, CfnResource]];
    expect(JSON.stringify(mapping.Properties?.EventSourceArn)).toContain('WalletTable');
    expect(mapping.Properties).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: expect.anything() } },
    });
  });

  it('give publishers the bus name and senders the queue URL, with grants', () => {
    const [, relay] = workerFunction('outbox-relay');
    expect(Object.keys(env(relay))).toEqual(expect.arrayContaining(['EVENT_BUS_NAME', queueUrlEnv('webhookDeliveries'), 'WALLET_TABLE']));
  });

  it('consume queues that have a dead-letter queue, enforce TLS and alarm on dead letters', () => {
    const [fnId] = workerFunction('webhook-delivery');
    const mapping = resourcesOfType(parent(), 'AWS::Lambda::EventSourceMapping').find(([, m]) => JSON.stringify(m.Properties?.FunctionName).includes(fnId))![1];
    const queueId = (mapping.Properties?.EventSourceArn as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]!;
    const queue = parent().Resources[queueId]!;
    const redrive = queue.Properties?.RedrivePolicy as { deadLetterTargetArn: { 'Fn::GetAtt': string[] }; maxReceiveCount: number };
    expect(redrive.maxReceiveCount).toBe(syntheticQueues[0]!.maxReceiveCount);
    const dlqId = redrive.deadLetterTargetArn['Fn::GetAtt'][0]!;
    for (const id of [queueId, dlqId]) {
      const policy = resourcesOfType(parent(), 'AWS::SQS::QueuePolicy').find(([, p]) => JSON.stringify(p.Properties?.Queues).includes(id));
      expect(JSON.stringify(policy?.[1].Properties?.PolicyDocument), id).toContain('"aws:SecureTransport":"false"');
    }
    const alarms = resourcesOfType(parent(), 'AWS::CloudWatch::Alarm').filter(([, a]) => JSON.stringify(a.Properties?.Dimensions ?? []).includes(dlqId));
    expect(alarms).toHaveLength(1);
    expect(alarms[0]![1].Properties).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 1 });
  });

  it('run schedules from EventBridge rules with their rate, the ledger one in the ledger stack', () => {
    const rules = (template: CfnTemplate) => resourcesOfType(template, 'AWS::Events::Rule').map(([, r]) => r.Properties?.ScheduleExpression);
    expect(rules(parent())).toContain('rate(5 minutes)');
    expect(rules(synth.stacks.ledger.parent)).toContain('rate(1 minute)');
    const [, billing] = workerFunction('subscription-billing');
    expect(billing.Properties?.VpcConfig).toBeDefined();
    expect(env(billing).LEDGER_TOKEN_URL).toBeDefined();
  });
});

describe('cdk-nag', () => {
  it('reports no unacknowledged AwsSolutions error or warning at this size either', () => {
    const findings = unacknowledgedFindings(synth.app);
    expect(findings.errors).toEqual([]);
    expect(findings.warnings).toEqual([]);
  });
});
