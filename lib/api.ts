import { Aws, NestedStack, Stack, Validations } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct, type IDependable } from 'constructs';
import { gateways, type GatewayName } from '../shared/http/gateways';
import type { AnyRoute } from '../shared/http/route';
import { bulkheadOf } from '../shared/http/bulkheads';
import { buildFunction, FunctionRoles, type AccessProfile, type FunctionContext, type ProjectFunction } from './function';
import { addGatewayProblems, gatewayProblems } from './gateway-responses';

/**
 * One API Gateway REST API per gateway of shared/http/gateways.ts, built from the route manifest:
 * one Lambda and one method per route, a fallback Lambda for every path or method no route serves,
 * problem+json gateway responses, and a stage with access logs, tracing and throttling.
 *
 * Layout for ~130 routes under CloudFormation's 500-resource limit: the API, its resource tree,
 * the fallback and the stage live in the parent stack; each route group (api + first tag) is a
 * nested stack holding its functions, log groups, methods, permissions and shared roles (about 4
 * resources per route). A group is derived from the route alone, so adding a route never moves
 * another route's method between stacks (which CloudFormation could apply create-before-delete
 * and fail on).
 */

/**
 * Upper bound per route group: 80 routes are about 330 resources and at most ~90 parameters in the
 * group's nested stack, well inside CloudFormation's 500 / 200.
 */
export const MAX_ROUTES_PER_GROUP = 80;

export type ApiEndpoint = { kind: 'regional' } | { kind: 'private'; vpcEndpoint: ec2.IInterfaceVpcEndpoint };

export interface ThrottleSettings {
  rateLimit: number;
  burstLimit: number;
}

/**
 * Provisioned concurrency per route, by operationId (`createTransfer`) or by route tag
 * (`money` for transfers, `payments`, `orders`): the number of environments kept initialized. An operationId
 * wins over a tag; a route named by neither has none.
 */
export type ProvisionedConcurrency = Readonly<Record<string, number>>;

/** A route's provisioned concurrency under `settings` (0: none). */
export function provisionedConcurrencyOf(route: AnyRoute, settings: ProvisionedConcurrency | undefined): number {
  if (!settings) return 0;
  const value = settings[route.operationId] ?? Math.max(0, ...route.tags.map((tag) => settings[tag] ?? 0));
  if (!Number.isInteger(value) || value < 0) throw new Error(`provisioned concurrency of ${route.operationId} must be a whole number; got ${String(value)}`);
  return value;
}

export interface ProjectApiProps {
  gateway: GatewayName;
  /** Latency-critical routes' provisioned concurrency (none by default). */
  provisionedConcurrency?: ProvisionedConcurrency;
  /** The routes this gateway serves (already filtered by api). */
  routes: readonly AnyRoute[];
  endpoint: ApiEndpoint;
  stageName: string;
  /** Stage-wide default; undefined leaves only the account-level limit. */
  throttle?: ThrottleSettings;
  functions: FunctionContext;
  /** Tables, capabilities and network of a route's function. */
  profileFor(route: AnyRoute): AccessProfile;
  environmentFor?(route: AnyRoute): Record<string, string>;
  /** Settings of the fallback function besides GATEWAY_NAME (the dashboard's origin, whose CORS preflights it answers). */
  fallbackEnvironment?: Record<string, string>;
  /** The account-level CloudWatch role setting the stage's execution logs need. */
  accountLogging?: IDependable;
}

/** API Gateway's source-ARN path: path parameters become wildcards. */
export const arnPath = (path: string): string => path.replace(/\{[^}]+\}/g, '*');

export const routeGroupKey = (route: AnyRoute): string => `${route.api}-${route.tags[0] ?? 'untagged'}`;

const pascal = (text: string): string =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');

/** AWS_PROXY integration without CDK's per-method Lambda permissions; callers grant once. */
export function lambdaProxy(fn: lambda.IFunction): apigateway.Integration {
  return new apigateway.Integration({
    type: apigateway.IntegrationType.AWS_PROXY,
    integrationHttpMethod: 'POST',
    uri: `arn:${Aws.PARTITION}:apigateway:${Aws.REGION}:lambda:path/2015-03-31/functions/${fn.functionArn}/invocations`,
  });
}

export class ProjectApi extends Construct {
  readonly api: apigateway.RestApi;
  readonly stage: apigateway.Stage;
  readonly fallback: ProjectFunction;
  readonly groups: RouteGroupStack[] = [];
  /** Every route method and its function, by operationId (tests and stacks look them up). */
  readonly routeMethods = new Map<string, { method: apigateway.Method; fn: ProjectFunction; group: RouteGroupStack }>();
  private readonly deployment: apigateway.Deployment;
  private readonly resources = new Map<string, apigateway.IResource>();
  private readonly props: ProjectApiProps;

  constructor(scope: Construct, id: string, props: ProjectApiProps) {
    super(scope, id);
    this.props = props;
    const gateway = gateways[props.gateway];
    const stack = Stack.of(this);

    const foreign = props.routes.filter((route) => !gateway.apis.includes(route.api));
    if (foreign.length > 0) {
      throw new Error(`${gateway.name} gateway cannot serve ${foreign.map((r) => `${r.operationId} (${r.api})`).join(', ')}`);
    }
    assertUnique(props.routes);

    this.api = new apigateway.RestApi(this, 'Api', {
      restApiName: `${stack.stackName}-${gateway.name}`,
      description: gateway.description,
      // Deployment and stage are built below, after the nested route stacks they depend on.
      deploy: false,
      cloudWatchRole: false,
      endpointConfiguration:
        props.endpoint.kind === 'private'
          ? { types: [apigateway.EndpointType.PRIVATE], vpcEndpoints: [props.endpoint.vpcEndpoint] }
          : { types: [apigateway.EndpointType.REGIONAL] },
      ...(props.endpoint.kind === 'private' ? { policy: privateApiPolicy(props.endpoint.vpcEndpoint) } : {}),
    });
    const responses = addGatewayProblems(this.api);

    // Fallback: problem+json 404/405 for anything no route method serves (functions/platform/fallback.ts).
    const fallbackRoles = new FunctionRoles(this, 'FallbackRoles');
    this.fallback = buildFunction(this, fallbackRoles, props.functions, {
      name: 'Fallback',
      handler: 'platform/fallback',
      description: `${gateway.name} gateway: 404/405 problem+json for unrouted requests`,
      profile: { tables: {}, capabilities: [] },
      environment: { GATEWAY_NAME: gateway.name, ...props.fallbackEnvironment },
      memoryMb: 256,
    });
    // ONE permission for every fallback method of this API instead of one per method.
    this.fallback.function.addPermission('InvokeFromApi', {
      principal: new iam.ServicePrincipal('apigateway.amazonaws.com'),
      sourceArn: this.api.arnForExecuteApi('*', '/*', '*'),
    });
    const fallbackIntegration = lambdaProxy(this.fallback.function);
    const fallbackMethods: apigateway.Method[] = [this.api.root.addMethod('ANY', fallbackIntegration)];
    // {proxy+} cannot sit beside another variable path part at the root.
    if (!props.routes.some((route) => /^\/\{[^}]+\}/.test(route.path))) {
      fallbackMethods.push(this.api.root.addResource('{proxy+}').addMethod('ANY', fallbackIntegration));
    }
    // API Gateway prefers the route's own method; ANY on the same resource catches wrong methods (405).
    for (const path of [...new Set(props.routes.map((route) => route.path))].sort()) {
      const resource = this.resourceFor(path);
      if (resource !== this.api.root) fallbackMethods.push(resource.addMethod('ANY', fallbackIntegration));
    }

    // Route groups, each a nested stack.
    const byGroup = new Map<string, AnyRoute[]>();
    for (const route of props.routes) {
      const key = routeGroupKey(route);
      byGroup.set(key, [...(byGroup.get(key) ?? []), route]);
    }
    for (const [key, routes] of [...byGroup.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      if (routes.length > MAX_ROUTES_PER_GROUP) {
        throw new Error(
          `Route group ${key} has ${routes.length} routes (max ${MAX_ROUTES_PER_GROUP}): give some of them another first tag.`,
        );
      }
      const group = new RouteGroupStack(this, `Routes${pascal(key)}`, {
        description: `${gateway.name} gateway routes tagged ${key}`,
        api: this.api,
        resources: new Map(routes.map((route) => [route.path, this.resourceFor(route.path)])),
        routes,
        functions: props.functions,
        profileFor: props.profileFor,
        environmentFor: props.environmentFor ?? (() => ({})),
        ...(props.provisionedConcurrency ? { provisionedConcurrency: props.provisionedConcurrency } : {}),
      });
      this.groups.push(group);
      for (const [operationId, built] of group.built) this.routeMethods.set(operationId, { ...built, group });
    }

    // A deployment is a snapshot: it must come after every method, and get a new logical id (so
    // CloudFormation makes a new snapshot) whenever what it would capture changes.
    this.deployment = new apigateway.Deployment(this, 'Deployment', {
      api: this.api,
      description: `${gateway.name} gateway`,
    });
    for (const dependency of [...this.groups, ...fallbackMethods, ...responses]) this.deployment.node.addDependency(dependency);
    this.deployment.addToLogicalId({
      routes: props.routes.map((route) => [route.method, route.path, route.operationId, routeGroupKey(route)]),
      responses: gatewayProblems.map((problem) => [problem.type.responseType, problem.code, problem.detail, problem.retryAfterSeconds]),
      endpoint: props.endpoint.kind,
    });

    const accessLogs = new logs.LogGroup(this, 'AccessLogs', { retention: logs.RetentionDays.ONE_YEAR });
    this.stage = new apigateway.Stage(this, 'Stage', {
      deployment: this.deployment,
      stageName: props.stageName,
      tracingEnabled: true,
      metricsEnabled: true,
      // Execution logs for errors only, and never bodies: requests carry credentials and PII.
      loggingLevel: apigateway.MethodLoggingLevel.ERROR,
      dataTraceEnabled: false,
      accessLogDestination: new apigateway.LogGroupLogDestination(accessLogs),
      accessLogFormat: accessLogFormat(),
      ...(props.throttle ? { throttlingRateLimit: props.throttle.rateLimit, throttlingBurstLimit: props.throttle.burstLimit } : {}),
    });
    if (props.accountLogging) this.stage.node.addDependency(props.accountLogging);
    this.api.deploymentStage = this.stage;

    this.acknowledgeApiRules(props);
  }

  /**
   * https://<id>.execute-api.<region>.<suffix>/<stage>, without depending on the stage resource;
   * with `-c executeApiDomain=<host[:port]>` the API's host is `<id>.execute-api.<that>` instead
   * (localstack/deploy.sh: LocalStack answers `<id>.execute-api.localhost.localstack.cloud:4566`).
   */
  get baseUrl(): string {
    return `https://${this.api.restApiId}.execute-api.${executeApiDomain(this)}/${this.props.stageName}`;
  }

  /**
   * A method outside the manifest, on the parent stack (the ledger's identity relay). It joins the
   * deployment snapshot like any route.
   */
  addExtraMethod(path: string, httpMethod: string, integration: apigateway.Integration): apigateway.Method {
    const method = this.resourceFor(path).addMethod(httpMethod, integration);
    this.deployment.node.addDependency(method);
    this.deployment.addToLogicalId({ extra: [httpMethod, path] });
    return method;
  }

  private resourceFor(path: string): apigateway.IResource {
    const existing = this.resources.get(path);
    if (existing) return existing;
    const parts = path.split('/').filter(Boolean);
    let resource: apigateway.IResource = this.api.root;
    let sofar = '';
    for (const part of parts) {
      sofar += `/${part}`;
      const known = this.resources.get(sofar);
      if (known) {
        resource = known;
        continue;
      }
      const variable = part.startsWith('{')
        ? resource.node.children.find(
            (child): child is apigateway.Resource =>
              child instanceof apigateway.Resource && /\/\{[^/]*\}$/.test(child.path) && !child.path.endsWith(`/${part}`),
          )
        : undefined;
      if (variable) {
        throw new Error(`${path}: API Gateway allows one variable per level; ${sofar} clashes with ${variable.path}. Use the same name.`);
      }
      resource = resource.getResource(part) ?? resource.addResource(part);
      this.resources.set(sofar, resource);
    }
    this.resources.set(path, resource);
    return resource;
  }

  private acknowledgeApiRules(props: ProjectApiProps): void {
    const here = Validations.of(this);
    here.acknowledge({
      id: 'AwsSolutions-APIG2',
      reason:
        'Requests are validated by the zod schemas of the route manifest inside each function, so a refusal is a problem+json invalid_request from the error catalogue; an API Gateway validator would answer in its own format.',
    });
    here.acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Every route verifies its credential in the shared middleware (API keys, user tokens, OIDC client tokens, spec part 5) with per-route principal kinds and scopes that API Gateway authorizers cannot express; the probes are public by spec. The same check runs on the embedded platform.',
    });
    here.acknowledge({
      id: 'AwsSolutions-COG4',
      reason:
        'Credentials are verified in the function middleware (see APIG4): wallet API keys and user tokens are not Cognito tokens, and the ledger verifies its Cognito client-credentials tokens itself so the check is identical locally.',
    });
    if (props.endpoint.kind === 'private') {
      here.acknowledge({
        id: 'AwsSolutions-APIG3',
        reason:
          'Private API: reachable only through the VPC endpoint its resource policy names, from the platform\'s own functions and operators; there is no internet traffic for a WAF to filter.',
      });
    } else {
      here.acknowledge({
        id: 'AwsSolutions-APIG3',
        reason:
          'WAF is optional for now (docs/infrastructure.md): stage throttling answers 429 rate_limited and every request is authenticated in the function; a WAFv2 web ACL with AWS managed rules is the planned hardening before production traffic.',
      });
    }
  }
}

/** `-c executeApiDomain`: where API hosts are below `execute-api.` (default the region's AWS domain). */
export function executeApiDomain(scope: Construct): string {
  const value: unknown = scope.node.tryGetContext('executeApiDomain');
  if (value === undefined || value === null || value === '') return `${Aws.REGION}.${Aws.URL_SUFFIX}`;
  if (typeof value !== 'string' || !/^[a-z0-9.-]+(:\d{1,5})?$/.test(value)) throw new Error(`-c executeApiDomain must be a host name, optionally with a port; got ${String(value)}`);
  return value;
}

/**
 * `-c bulkheadScale=<n>`: the multiplier of every route's bulkhead (reserved concurrency); 1 by
 * default, 0 turns reserved concurrency off (an account whose Lambda quota is still the 10 a new
 * account starts with). Refuses anything but a number from 0 to 100.
 */
export function bulkheadScale(scope: Construct): number {
  const value: unknown = scope.node.tryGetContext('bulkheadScale');
  if (value === undefined) return 1;
  const scale = Number(value);
  if (!Number.isFinite(scale) || scale < 0 || scale > 100) throw new Error(`-c bulkheadScale must be a number from 0 to 100; got ${String(value)}`);
  return scale;
}

/** Allow invoke only through the named VPC endpoint; deny everything else explicitly. */
function privateApiPolicy(endpoint: ec2.IInterfaceVpcEndpoint): iam.PolicyDocument {
  return new iam.PolicyDocument({
    statements: [
      new iam.PolicyStatement({
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['execute-api:Invoke'],
        resources: ['execute-api:/*'],
        conditions: { StringNotEquals: { 'aws:SourceVpce': endpoint.vpcEndpointId } },
      }),
      new iam.PolicyStatement({
        effect: iam.Effect.ALLOW,
        principals: [new iam.AnyPrincipal()],
        actions: ['execute-api:Invoke'],
        resources: ['execute-api:/*'],
        conditions: { StringEquals: { 'aws:SourceVpce': endpoint.vpcEndpointId } },
      }),
    ],
  });
}

function accessLogFormat(): apigateway.AccessLogFormat {
  const F = apigateway.AccessLogField;
  return apigateway.AccessLogFormat.custom(
    JSON.stringify({
      requestId: F.contextRequestId(),
      extendedRequestId: F.contextExtendedRequestId(),
      requestTime: F.contextRequestTime(),
      ip: F.contextIdentitySourceIp(),
      userAgent: F.contextIdentityUserAgent(),
      method: F.contextHttpMethod(),
      resourcePath: F.contextResourcePath(),
      path: F.contextPath(),
      status: F.contextStatus(),
      responseLength: F.contextResponseLength(),
      responseLatency: F.contextResponseLatency(),
      integrationStatus: F.contextIntegrationStatus(),
      integrationLatency: F.contextIntegrationLatency(),
      errorType: F.contextErrorResponseType(),
      error: F.contextErrorMessage(),
      xrayTraceId: F.contextXrayTraceId(),
      vpceId: '$context.identity.vpceId',
    }),
  );
}

function assertUnique(routes: readonly AnyRoute[]): void {
  const seen = new Set<string>();
  for (const route of routes) {
    const key = `${route.method} ${route.path}`;
    if (seen.has(key)) throw new Error(`Two routes serve ${key}`);
    if (seen.has(route.operationId)) throw new Error(`Two routes are named ${route.operationId}`);
    seen.add(key);
    seen.add(route.operationId);
  }
}

interface RouteGroupProps {
  description: string;
  api: apigateway.RestApi;
  resources: Map<string, apigateway.IResource>;
  routes: readonly AnyRoute[];
  functions: FunctionContext;
  profileFor(route: AnyRoute): AccessProfile;
  environmentFor(route: AnyRoute): Record<string, string>;
  provisionedConcurrency?: ProvisionedConcurrency;
}

/** The functions, methods and permissions of one route group, in a nested stack. */
export class RouteGroupStack extends NestedStack {
  readonly built = new Map<string, { method: apigateway.Method; fn: ProjectFunction }>();

  constructor(scope: Construct, id: string, props: RouteGroupProps) {
    super(scope, id, { description: props.description });
    const api = apigateway.RestApi.fromRestApiAttributes(this, 'Api', {
      restApiId: props.api.restApiId,
      rootResourceId: props.api.restApiRootResourceId,
    });
    const roles = new FunctionRoles(this, 'Roles');
    const imported = new Map<string, apigateway.IResource>();
    const resourceAt = (path: string): apigateway.IResource => {
      const known = imported.get(path);
      if (known) return known;
      const parent = props.resources.get(path);
      if (!parent) throw new Error(`no resource for ${path}`);
      const resource =
        path === '/'
          ? api.root
          : apigateway.Resource.fromResourceAttributes(this, `Resource${path.replaceAll('/', '.')}`, {
              resourceId: parent.resourceId,
              restApi: api,
              path,
            });
      imported.set(path, resource);
      return resource;
    };

    for (const route of props.routes) {
      const fn = buildFunction(this, roles, props.functions, {
        name: route.operationId,
        handler: route.handler,
        description: `${route.method} ${route.path} (${route.handler}): ${route.summary}`,
        profile: props.profileFor(route),
        environment: props.environmentFor(route),
        ...(route.function?.timeoutSeconds ? { timeoutSeconds: route.function.timeoutSeconds } : {}),
        ...(route.function?.memoryMb ? { memoryMb: route.function.memoryMb } : {}),
        ...(bulkheadScale(this) > 0 ? { reservedConcurrency: Math.max(1, Math.round(bulkheadOf(route) * bulkheadScale(this))) } : {}),
        ...(provisionedConcurrencyOf(route, props.provisionedConcurrency) > 0 ? { provisionedConcurrency: provisionedConcurrencyOf(route, props.provisionedConcurrency) } : {}),
      });
      // Scoped to this method and path on any stage; on the alias when it has provisioned concurrency.
      fn.target.addPermission('InvokeFromApi', {
        principal: new iam.ServicePrincipal('apigateway.amazonaws.com'),
        sourceArn: api.arnForExecuteApi(route.method, arnPath(route.path), '*'),
      });
      const method = new apigateway.Method(this, `${route.operationId}Method`, {
        resource: resourceAt(route.path),
        httpMethod: route.method,
        integration: lambdaProxy(fn.target),
        options: { operationName: route.operationId },
      });
      this.built.set(route.operationId, { method, fn });
    }
  }
}
