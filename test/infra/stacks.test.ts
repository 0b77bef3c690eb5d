import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeRuntime } from '../../lib/function';
import { gatewayProblems } from '../../lib/gateway-responses';
import { errorCatalogue } from '../../shared/kernel/errors';
import { bulkheadOf } from '../../shared/http/bulkheads';
import { gatewayOf } from '../../shared/http/gateways';
import { routes } from '../../shared/routes';
import { queues, workers } from '../../shared/workers';
import { ledgerTable, walletTable } from '../../shared/tables';
import { METRICS_NAMESPACE } from '../../shared/kernel/metrics';
import { ORPHANS_METRIC } from '../../shared/wallet/reconciliation/reconcile';
import { unacknowledgedFindings } from './nag';
import { actionsOf, allTemplates, functionsOf, methodsOf, resourcesOfType, synthesize, type CfnResource, type FoundFunction, type FoundMethod, type Synthesized, restApiName } from './support';

/** The stacks built from the real manifest (shared/routes.ts, shared/workers.ts), synthesized once. */
let synth: Synthesized;
let methods: { ledger: FoundMethod[]; wallet: FoundMethod[] };

beforeAll(() => {
  synth = synthesize();
  methods = { ledger: methodsOf(synth.stacks.ledger), wallet: methodsOf(synth.stacks.wallet) };
});

const restApi = (gateway: 'public' | 'ledger' | 'console'): CfnResource => {
  const stack = gateway === 'ledger' ? synth.stacks.ledger : synth.stacks.wallet;
  const found = resourcesOfType(stack.parent, 'AWS::ApiGateway::RestApi').find(([, api]) => api.Properties?.Name === restApiName('test', gateway));
  if (!found) throw new Error(`no ${gateway} API`);
  return found[1];
};

describe('routes', () => {
  it('gives every manifest route its own method on its gateway API, integrated with its own Lambda', () => {
    const all = [...methods.ledger, ...methods.wallet];
    for (const route of routes) {
      const matches = all.filter((method) => method.operationName === route.operationId);
      expect(matches, route.operationId).toHaveLength(1);
      const [method] = matches;
      expect(method).toMatchObject({ apiName: restApiName('test', gatewayOf(route.api)), path: route.path, httpMethod: route.method });
      expect(method!.function?.Type, route.operationId).toBe('AWS::Lambda::Function');
      expect(String(method!.function?.Properties?.Description)).toContain(`(${route.handler})`);
    }
  });

  it('puts no ledger route on the public API', () => {
    const publicOperations = methods.wallet.filter((m) => m.apiName === restApiName('test', 'public')).map((m) => m.operationName);
    const ledgerOperations = routes.filter((route) => route.api === 'ledger').map((route) => route.operationId);
    expect(ledgerOperations.length).toBeGreaterThan(0);
    expect(publicOperations.filter((op) => ledgerOperations.includes(op ?? ''))).toEqual([]);
  });
});

describe('ledger API', () => {
  it('is PRIVATE behind the execute-api VPC endpoint', () => {
    const api = restApi('ledger');
    const endpoints = (api.Properties?.EndpointConfiguration as { Types: string[]; VpcEndpointIds: { Ref: string }[] });
    expect(endpoints.Types).toEqual(['PRIVATE']);
    expect(endpoints.VpcEndpointIds).toHaveLength(1);
    const endpoint = synth.stacks.ledger.parent.Resources[endpoints.VpcEndpointIds[0]!.Ref]!;
    expect(endpoint.Type).toBe('AWS::EC2::VPCEndpoint');
    expect(JSON.stringify(endpoint.Properties?.ServiceName)).toContain('.execute-api');
    expect(endpoint.Properties?.PrivateDnsEnabled).toBe(true);
  });

  it('admits only its VPC endpoint in its resource policy and denies everyone else', () => {
    const api = restApi('ledger');
    const endpointRef = (api.Properties?.EndpointConfiguration as { VpcEndpointIds: unknown[] }).VpcEndpointIds[0];
    const statements = (api.Properties?.Policy as { Statement: Record<string, unknown>[] }).Statement;
    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { StringNotEquals: { 'aws:SourceVpce': endpointRef } } }),
    );
    for (const allow of statements.filter((statement) => statement.Effect === 'Allow')) {
      expect(allow.Condition).toEqual({ StringEquals: { 'aws:SourceVpce': endpointRef } });
    }
  });

  it('runs its functions in the isolated subnets with the OIDC settings the verifier reads', () => {
    const ledgerRoutes = routes.filter((route) => route.api === 'ledger');
    for (const route of ledgerRoutes) {
      const fn = methods.ledger.find((m) => m.operationName === route.operationId)!.function!;
      expect(fn.Properties?.VpcConfig, route.operationId).toBeDefined();
      const env = (fn.Properties?.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(Object.keys(env)).toEqual(expect.arrayContaining(['OIDC_ISSUER', 'OIDC_AUDIENCE', 'OIDC_JWKS_URL', 'STAGE']));
      expect(env.OIDC_AUDIENCE).toBe('ledger');
    }
  });

  it('has a VPC with isolated subnets only: no NAT gateway, no internet gateway', () => {
    const parent = synth.stacks.ledger.parent;
    expect(resourcesOfType(parent, 'AWS::EC2::NatGateway')).toEqual([]);
    expect(resourcesOfType(parent, 'AWS::EC2::InternetGateway')).toEqual([]);
    for (const [, subnet] of resourcesOfType(parent, 'AWS::EC2::Subnet')) expect(subnet.Properties?.MapPublicIpOnLaunch).toBe(false);
    const gateway = resourcesOfType(parent, 'AWS::EC2::VPCEndpoint').find(([, e]) => e.Properties?.VpcEndpointType === 'Gateway');
    expect(JSON.stringify(gateway?.[1].Properties?.ServiceName)).toContain('.dynamodb');
  });

  it('issues client-credentials tokens to the wallet from a Cognito pool with a resource server and a domain', () => {
    const parent = synth.stacks.ledger.parent;
    const [[serverId, server]] = resourcesOfType(parent, 'AWS::Cognito::UserPoolResourceServer') as [[string, CfnResource]];
    expect(server.Properties).toMatchObject({ Identifier: 'ledger', Scopes: [expect.objectContaining({ ScopeName: 'postings' })] });
    expect(resourcesOfType(parent, 'AWS::Cognito::UserPoolDomain')).toHaveLength(1);
    const clients = resourcesOfType(parent, 'AWS::Cognito::UserPoolClient').map(([, client]) => client.Properties);
    expect(clients).toContainEqual(
      expect.objectContaining({
        GenerateSecret: true,
        AllowedOAuthFlows: ['client_credentials'],
        // `<resource server identifier>/postings`: the Ref of a resource server is its identifier.
        AllowedOAuthScopes: [{ 'Fn::Join': ['', [{ Ref: serverId }, '/postings']] }],
      }),
    );
  });
});

describe('tables', () => {
  const table = (stack: 'ledger' | 'wallet', logicalId: string) => synth.stacks[stack].parent.Resources[logicalId]!;

  it.each([
    ['ledger', ledgerTable],
    ['wallet', walletTable],
  ] as const)('builds the %s table from its definition with PITR, deletion protection, TTL and on-demand billing', (stack, definition) => {
    const resource = table(stack, definition.logicalId);
    expect(resource.Type).toBe('AWS::DynamoDB::Table');
    expect(resource.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      DeletionProtectionEnabled: true,
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: definition.ttlAttribute, Enabled: true },
      SSESpecification: { SSEEnabled: true },
      KeySchema: [
        { AttributeName: definition.partitionKey, KeyType: 'HASH' },
        { AttributeName: definition.sortKey, KeyType: 'RANGE' },
      ],
    });
    const indexes = (resource.Properties?.GlobalSecondaryIndexes as { IndexName: string; Projection: { ProjectionType: string } }[]).map(
      (index) => [index.IndexName, index.Projection.ProjectionType],
    );
    expect(indexes).toEqual(definition.indexes.map((index) => [index.name, index.projection]));
    expect((resource as { DeletionPolicy?: string }).DeletionPolicy).toBe('Retain');
  });

  it('streams the wallet table with the definition\'s view type, and not the ledger table', () => {
    expect(table('wallet', walletTable.logicalId).Properties?.StreamSpecification).toEqual({ StreamViewType: walletTable.stream });
    expect(table('ledger', ledgerTable.logicalId).Properties?.StreamSpecification).toBeUndefined();
  });
});

describe('gateway responses', () => {
  const responses = (gateway: 'public' | 'ledger' | 'console') => {
    const stack = gateway === 'ledger' ? synth.stacks.ledger : synth.stacks.wallet;
    const apiId = Object.entries(stack.parent.Resources).find(([, r]) => r.Type === 'AWS::ApiGateway::RestApi' && r.Properties?.Name === restApiName('test', gateway))![0];
    return resourcesOfType(stack.parent, 'AWS::ApiGateway::GatewayResponse')
      .map(([, r]) => r.Properties!)
      .filter((p) => (p.RestApiId as { Ref: string }).Ref === apiId);
  };

  it.each(['public', 'ledger', 'console'] as const)('answers every gateway error of the %s API as problem+json from the catalogue', (gateway) => {
    const found = responses(gateway);
    expect(found.map((p) => p.ResponseType).sort()).toEqual(gatewayProblems.map((p) => p.type.responseType).sort());
    for (const props of found) {
      const body = JSON.parse((props.ResponseTemplates as Record<string, string>)['application/json']!) as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(expect.arrayContaining(['type', 'title', 'status', 'detail', 'code', 'request_id']));
      const entry = errorCatalogue[body.code as keyof typeof errorCatalogue];
      expect(entry, String(body.code)).toBeDefined();
      expect(body).toMatchObject({ status: entry.status, title: entry.title, request_id: '$context.requestId' });
      expect(props.StatusCode).toBe(String(entry.status));
      expect((props.ResponseParameters as Record<string, string>)['gatewayresponse.header.Content-Type']).toBe("'application/problem+json'");
    }
  });

  it('answers DEFAULT_4XX, DEFAULT_5XX and THROTTLED with the catalogue codes, the last with Retry-After', () => {
    const byType = new Map(responses('public').map((p) => [p.ResponseType, p]));
    const code = (type: string) => (JSON.parse((byType.get(type)!.ResponseTemplates as Record<string, string>)['application/json']!) as { code: string }).code;
    expect(code('DEFAULT_4XX')).toBe('invalid_request');
    expect(code('DEFAULT_5XX')).toBe('internal_error');
    expect(code('THROTTLED')).toBe('rate_limited');
    expect(byType.get('THROTTLED')!.StatusCode).toBe('429');
    expect((byType.get('THROTTLED')!.ResponseParameters as Record<string, string>)['gatewayresponse.header.Retry-After']).toMatch(/^'\d+'$/);
  });
});

describe('bulkheads', () => {
  it('give every route function its reserved concurrency, within what a default account can reserve', () => {
    const all = [...methods.ledger, ...methods.wallet];
    let reserved = 0;
    for (const route of routes) {
      const fn = all.find((method) => method.operationName === route.operationId)!.function!;
      expect(fn.Properties?.ReservedConcurrentExecutions, route.operationId).toBe(bulkheadOf(route));
      reserved += bulkheadOf(route);
    }
    // 1,000 per account and region by default, of which 100 must stay unreserved; workers share the rest.
    expect(reserved).toBeLessThanOrEqual(800);
  });

  it('map a throttled function (an integration failure) to 503 bulkhead_full with Retry-After', () => {
    const stack = synth.stacks.wallet;
    const failure = resourcesOfType(stack.parent, 'AWS::ApiGateway::GatewayResponse').find(([, r]) => r.Properties?.ResponseType === 'INTEGRATION_FAILURE')![1];
    expect(failure.Properties?.StatusCode).toBe('503');
    expect(JSON.parse((failure.Properties?.ResponseTemplates as Record<string, string>)['application/json']!)).toMatchObject({ code: 'bulkhead_full', status: 503 });
    expect((failure.Properties?.ResponseParameters as Record<string, string>)['gatewayresponse.header.Retry-After']).toMatch(/^'\d+'$/);
  });
});

describe('functions', () => {
  const functions = () => [synth.stacks.ledger, synth.stacks.wallet].flatMap(allTemplates).flatMap((t) => resourcesOfType(t, 'AWS::Lambda::Function'));

  it('run the newest Node.js runtime on arm64 with active tracing and an explicit log group', () => {
    const ours = functions().filter(([, fn]) => fn.Properties?.Handler === 'index.handler');
    expect(ours.length).toBeGreaterThan(routes.length);
    for (const [id, fn] of ours) {
      expect(fn.Properties, id).toMatchObject({
        Runtime: nodeRuntime.name,
        Architectures: ['arm64'],
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogGroup: expect.anything() },
      });
    }
  });

  it('run on the Node.js major that `npm run test:lambda-node` tests them on', () => {
    const script = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }).scripts['test:lambda-node'];
    expect(script).toMatch(/^sh scripts\/with-node\.sh \d+ /);
    expect(`nodejs${script!.split(' ')[2]}.x`).toBe(nodeRuntime.name);
  });

  it('keep their logs for a year', () => {
    const groups = [synth.stacks.ledger, synth.stacks.wallet].flatMap(allTemplates).flatMap((t) => resourcesOfType(t, 'AWS::Logs::LogGroup'));
    for (const [id, group] of groups) expect(group.Properties?.RetentionInDays, id).toBe(365);
  });
});

describe('stage', () => {
  it.each(['public', 'ledger', 'console'] as const)('of the %s API has access logs, tracing and error logging', (gateway) => {
    const stack = gateway === 'ledger' ? synth.stacks.ledger : synth.stacks.wallet;
    const stages = resourcesOfType(stack.parent, 'AWS::ApiGateway::Stage').map(([, s]) => s.Properties!);
    const apiId = Object.entries(stack.parent.Resources).find(([, r]) => r.Properties?.Name === restApiName('test', gateway))![0];
    const stage = stages.find((s) => (s.RestApiId as { Ref: string }).Ref === apiId)!;
    expect(stage).toMatchObject({
      TracingEnabled: true,
      AccessLogSetting: { DestinationArn: expect.anything(), Format: expect.stringContaining('$context.requestId') },
      MethodSettings: [expect.objectContaining({ LoggingLevel: 'ERROR', DataTraceEnabled: false })],
    });
  });

  it('throttles the public API and leaves the ledger unthrottled (spec part 8)', () => {
    const settings = (stack: typeof synth.stacks.ledger) =>
      resourcesOfType(stack.parent, 'AWS::ApiGateway::Stage').map(([, s]) => (s.Properties!.MethodSettings as Record<string, unknown>[])[0]!);
    expect(settings(synth.stacks.wallet)).toContainEqual(expect.objectContaining({ ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 }));
    expect(settings(synth.stacks.ledger)[0]!.ThrottlingRateLimit).toBeUndefined();
  });
});

/** The wallet stack's route functions by operationId, with their role statements and environment. */
function walletRouteFunctions(of: Synthesized): Map<string, FoundFunction> {
  const byResource = new Map(functionsOf(of.stacks.wallet).map((found) => [found.fn, found]));
  return new Map(
    methodsOf(of.stacks.wallet)
      .filter((method) => method.operationName && method.function)
      .map((method) => [method.operationName!, byResource.get(method.function!)!]),
  );
}

const walletSideRoutes = routes.filter((route) => route.api !== 'ledger');
const keyArn = (logicalId: string) => ({ 'Fn::GetAtt': [logicalId, 'Arn'] });

describe('token signing key', () => {
  it('is a retained KMS RSA_2048 SIGN_VERIFY key in the wallet stack, with a stable logical id and an alias', () => {
    const keys = resourcesOfType(synth.stacks.wallet.parent, 'AWS::KMS::Key');
    expect(keys.map(([id]) => id)).toEqual(['TokenSigningKey1']);
    const [[, key]] = keys as [[string, CfnResource & { DeletionPolicy?: string; UpdateReplacePolicy?: string }]];
    expect(key.Properties).toMatchObject({ KeySpec: 'RSA_2048', KeyUsage: 'SIGN_VERIFY' });
    expect(key.Properties?.EnableKeyRotation).toBeUndefined(); // KMS cannot rotate asymmetric keys: runbook
    expect([key.DeletionPolicy, key.UpdateReplacePolicy]).toEqual(['Retain', 'Retain']);
    const aliases = resourcesOfType(synth.stacks.wallet.parent, 'AWS::KMS::Alias').map(([, alias]) => alias.Properties);
    expect(aliases).toEqual([{ AliasName: 'alias/wp-test-wallet/token-signing-1', TargetKeyId: keyArn('TokenSigningKey1') }]);
  });

  it('lets only the token-minting routes sign, and every wallet, auth and console route read the public key', () => {
    const functions = walletRouteFunctions(synth);
    const signers = walletSideRoutes.filter((route) => route.capabilities?.includes('signsTokens')).map((route) => route.operationId);
    expect(signers.sort()).toEqual(['createStaffSession', 'createUserToken']);
    for (const route of walletSideRoutes) {
      const found = functions.get(route.operationId)!;
      const actions = actionsOf(found);
      expect(actions.get('kms:GetPublicKey'), route.operationId).toEqual([keyArn('TokenSigningKey1')]);
      expect(actions.get('kms:Sign'), route.operationId).toEqual(signers.includes(route.operationId) ? [keyArn('TokenSigningKey1')] : undefined);
      expect(found.env, route.operationId).toMatchObject({ WALLET_ISSUER: 'urn:wallet:test', WALLET_SIGNING_KMS_KEY_ID: keyArn('TokenSigningKey1') });
      expect(found.env.WALLET_SIGNING_KMS_PREVIOUS_KEY_ID).toBeUndefined();
      // No IdP configured: IdP tokens are refused (shared/wallet/auth/credentials.ts reads IDP_ISSUER).
      expect(found.env.IDP_ISSUER).toBeUndefined();
    }
    // Nothing else in either stack may sign.
    const allFunctions = [...functionsOf(synth.stacks.ledger), ...functionsOf(synth.stacks.wallet)];
    expect(allFunctions.filter((found) => actionsOf(found).has('kms:Sign'))).toHaveLength(signers.length);
  });
});

describe('wallet functions that call the ledger', () => {
  it('are exactly the callsLedger routes: in the ledger VPC with the ledger client settings and the secret', () => {
    const functions = walletRouteFunctions(synth);
    const callers = walletSideRoutes.filter((route) => route.capabilities?.includes('callsLedger')).map((route) => route.operationId);
    expect(callers).toEqual(expect.arrayContaining(['createTenant', 'getTenantHealth', 'createUser', 'getLedgerSummary', 'listPlatformTransactions', 'getUserBalances']));
    // Reads whose service never calls the ledger: an IdP user's first contact there is queued, not provisioned in place.
    expect(callers).not.toEqual(expect.arrayContaining(['listUsers']));
    expect(callers).not.toEqual(expect.arrayContaining(['getUser']));
    for (const route of walletSideRoutes) {
      const found = functions.get(route.operationId)!;
      const calls = callers.includes(route.operationId);
      expect(found.fn.Properties?.VpcConfig !== undefined, route.operationId).toBe(calls);
      expect(Object.keys(found.env).filter((name) => name.startsWith('LEDGER_')).sort(), route.operationId).toEqual(
        calls ? ['LEDGER_API_URL', 'LEDGER_CREDENTIALS_SECRET_ARN', 'LEDGER_SCOPES', 'LEDGER_TOKEN_URL'] : [],
      );
      expect(actionsOf(found).has('secretsmanager:GetSecretValue'), route.operationId).toBe(calls);
    }
  });

  it('reach Secrets Manager and KMS through interface endpoints in the ledger VPC', () => {
    const services = resourcesOfType(synth.stacks.wallet.parent, 'AWS::EC2::VPCEndpoint').map(([, endpoint]) => JSON.stringify(endpoint.Properties?.ServiceName));
    expect(services.some((name) => name.includes('.secretsmanager'))).toBe(true);
    expect(services.some((name) => name.includes('.kms'))).toBe(true);
  });

  it('send what their credential check records to queues: access records from every authenticated route, first contacts from the reads that admit IdP users', () => {
    const functions = walletRouteFunctions(synth);
    const queueArn = (name: string) => {
      const found = resourcesOfType(synth.stacks.wallet.parent, 'AWS::SQS::Queue').find(([id]) => id.startsWith(`Queue${name[0]!.toUpperCase()}${name.slice(1)}Queue`));
      if (!found) throw new Error(`no queue ${name}`);
      return { 'Fn::GetAtt': [found[0], 'Arn'] };
    };
    for (const route of walletSideRoutes) {
      const found = functions.get(route.operationId)!;
      const sends = actionsOf(found).get('sqs:SendMessage') ?? [];
      const authenticated = route.access !== 'public';
      const admitsIdp = route.access !== 'public' && route.access.principals.includes('idp_user');
      const provisionsInPlace = route.tables.wallet === 'RW' && route.capabilities?.includes('callsLedger') === true;
      expect(sends.some((arn) => JSON.stringify(arn) === JSON.stringify(queueArn('accessRecords'))), route.operationId).toBe(authenticated);
      expect(found.env.QUEUE_URL_ACCESS_RECORDS !== undefined, route.operationId).toBe(authenticated);
      expect(sends.some((arn) => JSON.stringify(arn) === JSON.stringify(queueArn('idpFirstContact'))), route.operationId).toBe(admitsIdp && !provisionsInPlace);
    }
  });
});

describe('a rotation in progress, with an identity provider', () => {
  let rotated: Synthesized;
  const idp = { issuer: 'https://idp.example.com/realms/wallet', jwksUrl: 'https://idp.example.com/realms/wallet/protocol/openid-connect/certs' };

  beforeAll(() => {
    rotated = synthesize({}, 'rot', { signingKeys: { current: 2, previous: 1 }, idp });
  });

  it('publishes both keys, signs with the current one only', () => {
    expect(resourcesOfType(rotated.stacks.wallet.parent, 'AWS::KMS::Key').map(([id]) => id).sort()).toEqual(['TokenSigningKey1', 'TokenSigningKey2']);
    const functions = walletRouteFunctions(rotated);
    for (const route of walletSideRoutes) {
      const found = functions.get(route.operationId)!;
      const actions = actionsOf(found);
      expect(found.env, route.operationId).toMatchObject({
        WALLET_SIGNING_KMS_KEY_ID: keyArn('TokenSigningKey2'),
        WALLET_SIGNING_KMS_PREVIOUS_KEY_ID: keyArn('TokenSigningKey1'),
      });
      expect(actions.get('kms:GetPublicKey')).toEqual(expect.arrayContaining([keyArn('TokenSigningKey1'), keyArn('TokenSigningKey2')]));
      if (actions.has('kms:Sign')) expect(actions.get('kms:Sign'), route.operationId).toEqual([keyArn('TokenSigningKey2')]);
    }
  });

  it('gives the IdP settings to every wallet function, with the JWKS relayed by the console API for in-VPC ones', () => {
    const functions = walletRouteFunctions(rotated);
    for (const route of walletSideRoutes) {
      const found = functions.get(route.operationId)!;
      expect(found.env, route.operationId).toMatchObject({ IDP_ISSUER: idp.issuer, IDP_AUDIENCE: 'wallet' });
      const jwks = JSON.stringify(found.env.IDP_JWKS_URL);
      if (found.fn.Properties?.VpcConfig) expect(jwks, route.operationId).toMatch(/execute-api.*\/rot\/\.well-known\/idp-jwks\.json/);
      else expect(found.env.IDP_JWKS_URL, route.operationId).toBe(idp.jwksUrl);
    }
    const relay = methodsOf(rotated.stacks.wallet).filter((method) => method.path === '/.well-known/idp-jwks.json');
    expect(relay.map((method) => [method.apiName, method.httpMethod])).toEqual([['wp-rot-wallet-console', 'GET']]);
    const [[, method]] = resourcesOfType(rotated.stacks.wallet.parent, 'AWS::ApiGateway::Method').filter(
      ([, m]) => (m.Properties?.Integration as { Uri?: unknown } | undefined)?.Uri === idp.jwksUrl,
    ) as [[string, CfnResource]];
    expect(method.Properties?.Integration).toMatchObject({ Type: 'HTTP_PROXY', IntegrationHttpMethod: 'GET' });
  });

  it('stays free of unacknowledged cdk-nag findings', () => {
    const findings = unacknowledgedFindings(rotated.app);
    expect([...findings.errors, ...findings.warnings]).toEqual([]);
  });
});

describe('route capabilities', () => {
  it('are refused on ledger routes', () => {
    const ledgerRoute = routes.find((route) => route.api === 'ledger')!;
    expect(() => synthesize({ routes: [{ ...ledgerRoute, capabilities: ['callsLedger'] }], workers: [], queues: [] }, 'bad')).toThrow(
      /wallet-side capabilities/,
    );
  });
});

describe('cdk-nag', () => {
  it('reports no unacknowledged AwsSolutions error or warning', () => {
    const findings = unacknowledgedFindings(synth.app);
    expect(findings.errors).toEqual([]);
    expect(findings.warnings).toEqual([]);
  });
});

describe('events and queues of the real manifest', () => {
  it('has the event bus, the relay on the wallet stream, and a dead-letter queue with an alarm for every queue', () => {
    const wallet = synth.stacks.wallet.parent;
    expect(resourcesOfType(wallet, 'AWS::Events::EventBus')).toHaveLength(1);
    const streamMappings = allTemplates(synth.stacks.wallet)
      .flatMap((t) => resourcesOfType(t, 'AWS::Lambda::EventSourceMapping'))
      .filter(([, m]) => JSON.stringify(m.Properties?.EventSourceArn).includes('StreamArn'));
    expect(streamMappings.length).toBeGreaterThanOrEqual(1);
    const queuesWithDlq = resourcesOfType(wallet, 'AWS::SQS::Queue').filter(([, q]) => q.Properties?.RedrivePolicy);
    expect(queuesWithDlq.length).toBe(queues.length);
    for (const [, queue] of queuesWithDlq) {
      const dlqId = (queue.Properties?.RedrivePolicy as { deadLetterTargetArn: { 'Fn::GetAtt': string[] } }).deadLetterTargetArn['Fn::GetAtt'][0]!;
      const alarms = resourcesOfType(wallet, 'AWS::CloudWatch::Alarm').filter(([, a]) => JSON.stringify(a.Properties?.Dimensions ?? []).includes(dlqId));
      expect(alarms, dlqId).toHaveLength(1);
    }
    const schedules = [synth.stacks.wallet.parent, synth.stacks.ledger.parent].flatMap((t) => resourcesOfType(t, 'AWS::Events::Rule')).filter(([, r]) => r.Properties?.ScheduleExpression);
    expect(schedules.length).toBe(workers.filter((w) => w.trigger.kind === 'schedule').length);
  });

  it("invokes each stream worker only for the records its manifest filters admit (Lambda event filtering)", () => {
    const templates = allTemplates(synth.stacks.wallet);
    const streamWorkers = workers.filter((w) => w.trigger.kind === 'stream');
    expect(streamWorkers.length).toBeGreaterThan(0);
    for (const worker of streamWorkers) {
      const trigger = worker.trigger as Extract<typeof worker.trigger, { kind: 'stream' }>;
      const [fnId] = templates.flatMap((t) => resourcesOfType(t, 'AWS::Lambda::Function')).find(([, fn]) => String(fn.Properties?.Description).includes(`(${worker.handler})`))!;
      const [, mapping] = templates.flatMap((t) => resourcesOfType(t, 'AWS::Lambda::EventSourceMapping')).find(([, m]) => JSON.stringify(m.Properties?.FunctionName).includes(fnId))!;
      const patterns = ((mapping.Properties?.FilterCriteria as { Filters?: { Pattern: string }[] } | undefined)?.Filters ?? []).map((f) => JSON.parse(f.Pattern) as unknown);
      expect(patterns, worker.name).toEqual(trigger.filters ?? []);
    }
  });
});

describe('reconciliation', () => {
  it('runs the worker every five minutes in the ledger VPC, and alarms on any orphan it counts (missing data is no breach)', () => {
    const worker = workers.find((w) => w.name === 'walletReconcileLedgers')!;
    expect(worker.trigger).toEqual({ kind: 'schedule', rateMinutes: 5 });
    const templates = allTemplates(synth.stacks.wallet);
    const [fnId, fn] = templates.flatMap((t) => resourcesOfType(t, 'AWS::Lambda::Function')).find(([, f]) => String(f.Properties?.Description).includes(`(${worker.handler})`))!;
    expect(fn.Properties).toMatchObject({ Timeout: 300, VpcConfig: expect.anything() });
    const rules = templates.flatMap((t) => resourcesOfType(t, 'AWS::Events::Rule')).filter(([, rule]) => JSON.stringify(rule.Properties?.Targets).includes(fnId));
    expect(rules.map(([, rule]) => rule.Properties?.ScheduleExpression)).toEqual(['rate(5 minutes)']);

    const alarms = templates.flatMap((t) => resourcesOfType(t, 'AWS::CloudWatch::Alarm')).filter(([, alarm]) => alarm.Properties?.MetricName === ORPHANS_METRIC);
    expect(alarms).toHaveLength(1);
    expect(alarms[0]![1].Properties).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      MetricName: 'ReconciliationOrphans',
      Dimensions: [
        { Name: 'Stage', Value: 'test' },
        { Name: 'service', Value: 'wallet-platform' },
      ],
      Statistic: 'Maximum',
      Period: 300,
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
    });
  });
});
