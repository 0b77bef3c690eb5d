import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ROUTE_TIMEOUT_SECONDS, type TableAccess } from '../shared/http/route';
import type { TableKey } from '../shared/tables';
import type { ProjectTable } from './table';

/**
 * The one project function construct: every Lambda of the platform (routes, workers, fallbacks)
 * is built here, so runtime, architecture, tracing, logging and grants cannot drift between them.
 * Modelled on Powertools' examples/app/cdk function-with-logstream-construct.ts.
 */

/**
 * The newest Node.js runtime aws-cdk-lib knows (cdk-nag AwsSolutions-L1 compares against the same
 * list). Named explicitly rather than NODEJS_LATEST so a CDK upgrade never changes the runtime of
 * deployed functions silently; L1 fails the synth when a newer one appears.
 */
export const nodeRuntime = lambda.Runtime.NODEJS_24_X;

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = join(here, '..');

/** Where function code comes from: the bundles in dist/ or, when bundling is skipped, a stand-in. */
export type FunctionCode = { kind: 'bundled'; distDir: string } | { kind: 'stand-in' };

export const FunctionCode = {
  bundled: (distDir = join(repoRoot, 'dist')): FunctionCode => ({ kind: 'bundled', distDir }),
  /** One tiny shared asset for every function, for tests and `-c skipBundling=true` synths. */
  standIn: (): FunctionCode => ({ kind: 'stand-in' }),
  /** `-c skipBundling=true` selects the stand-in; anything else the bundles. */
  fromContext: (scope: Construct): FunctionCode => (skipBundling(scope) ? FunctionCode.standIn() : FunctionCode.bundled()),
};

/**
 * `-c skipBundling=true`, or the CLI saying no stack needs bundling (`cdk ls`, `cdk destroy` set
 * `aws:cdk:bundling-stacks` to [], as CDK tests may): then no esbuild run and stand-in code.
 */
export function skipBundling(scope: Construct): boolean {
  const value: unknown = scope.node.tryGetContext('skipBundling');
  const bundlingStacks: unknown = scope.node.tryGetContext('aws:cdk:bundling-stacks');
  return value === true || value === 'true' || (Array.isArray(bundlingStacks) && bundlingStacks.length === 0);
}

const standInDir = join(here, 'stand-in');

function codeFor(code: FunctionCode, handler: string): lambda.Code {
  if (code.kind === 'stand-in') return lambda.Code.fromAsset(standInDir);
  const dir = join(code.distDir, handler);
  if (!existsSync(join(dir, 'index.mjs'))) {
    throw new Error(`No bundle for ${handler} in ${code.distDir}: run \`npx tsx scripts/bundle.ts\` (or synth without skipBundling).`);
  }
  return lambda.Code.fromAsset(dir);
}

/** Placement in the VPC: isolated subnets and the shared security group of an area. */
export interface FunctionNetwork {
  vpc: ec2.IVpc;
  subnets: ec2.SubnetSelection;
  securityGroups: ec2.ISecurityGroup[];
}

/**
 * Something a function may use besides its tables: a queue, the event bus, the ledger client...
 * It brings its env vars and its grant. `key` is part of the shared role's identity, so two
 * functions share a role only when they hold exactly the same capabilities.
 */
export interface Capability {
  key: string;
  environment: Record<string, string>;
  grant(grantee: iam.IGrantable): void;
}

/** Everything that decides a function's permissions; functions with equal profiles share a role. */
export interface AccessProfile {
  tables: TableAccess;
  capabilities: readonly Capability[];
  network?: FunctionNetwork;
}

export function profileKey(profile: AccessProfile): string {
  const tables = Object.entries(profile.tables)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([table, access]) => `${table}-${access}`);
  const capabilities = profile.capabilities.map((capability) => capability.key).sort();
  return [...tables, ...capabilities, ...(profile.network ? ['vpc'] : [])].join('+') || 'basic';
}

/** DynamoDB actions per access level. No Scan: every access path is a key or an index (DESIGN.md). */
const tableActions = {
  RO: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem', 'dynamodb:DescribeTable'],
  RW: [
    'dynamodb:GetItem',
    'dynamodb:BatchGetItem',
    'dynamodb:Query',
    'dynamodb:ConditionCheckItem',
    'dynamodb:DescribeTable',
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:BatchWriteItem',
  ],
} as const;

/** What each shared role has been granted, so a second function on it cannot widen or narrow it. */
const roleGrants = new WeakMap<iam.IRole, Map<string, string>>();

function recordGrant(role: iam.IRole, subject: string, level: string): boolean {
  const grants = roleGrants.get(role) ?? new Map<string, string>();
  roleGrants.set(role, grants);
  const existing = grants.get(subject);
  if (existing === undefined) {
    grants.set(subject, level);
    return true;
  }
  if (existing !== level) {
    throw new Error(`A shared role holds ${subject} as ${existing}; a function needing ${level} must get its own role (profileKey).`);
  }
  return false;
}

/**
 * Shared execution roles of one area (a route group or a stack's workers): one role per distinct
 * access profile instead of one per function, which keeps ~130 functions far from the 500-resource
 * limit and makes the permissions of an area reviewable at a glance.
 */
export class FunctionRoles extends Construct {
  /**
   * Each function adds its log group's ARN to the role's policy; IAM caps a role's inline policies
   * at 10,240 characters, so a role takes at most this many functions and the next one gets a sibling.
   */
  static readonly MAX_FUNCTIONS_PER_ROLE = 20;
  private readonly roles = new Map<string, iam.Role>();
  private readonly counts = new Map<string, number>();

  roleFor(profile: AccessProfile): iam.Role {
    const key = profileKey(profile);
    const count = this.counts.get(key) ?? 0;
    this.counts.set(key, count + 1);
    const id = count < FunctionRoles.MAX_FUNCTIONS_PER_ROLE ? key : `${key}-${Math.floor(count / FunctionRoles.MAX_FUNCTIONS_PER_ROLE) + 1}`;
    const existing = this.roles.get(id);
    if (existing) return existing;

    const role = new iam.Role(this, id, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Lambda execution role shared by functions with access ${key}`,
    });
    if (profile.network) {
      role.addManagedPolicy(iam.ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaVPCAccessExecutionRole'));
      Validations.of(role).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]',
        reason:
          'Lambda needs these ENI permissions to place a function in the VPC; the AWS-maintained policy tracks what the service requires (it grew DescribeSubnets in 2024) better than a copy would.',
      });
    }
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Only actions without resource-level permissions use "*": xray:PutTraceSegments/PutTelemetryRecords for active tracing and dynamodb:ListStreams for stream event sources (test/infra checks no other action does).',
    });
    this.roles.set(id, role);
    return role;
  }
}

export interface ProjectFunctionProps {
  /** Construct id and the name in logs: the route's operationId or the worker's name. */
  name: string;
  /** Entry under functions/, without extension; dist/<handler>/index.mjs exports `handler`. */
  handler: string;
  description: string;
  code: FunctionCode;
  role: iam.Role;
  environment?: Record<string, string>;
  network?: FunctionNetwork;
  timeoutSeconds?: number;
  memoryMb?: number;
  /** Reserved concurrency: the function's bulkhead (shared/http/bulkheads.ts); none when absent. */
  reservedConcurrency?: number;
  /**
   * Provisioned concurrency: environments initialized ahead of requests (no cold start), on an
   * alias `live` of the function's current version, which callers then invoke (`target`).
   */
  provisionedConcurrency?: number;
  logRetention?: logs.RetentionDays;
}

export class ProjectFunction extends Construct {
  readonly function: lambda.Function;
  /** What callers invoke: the `live` alias when the function has provisioned concurrency, else the function. */
  readonly target: lambda.IFunction;
  readonly logGroup: logs.LogGroup;
  readonly role: iam.Role;

  constructor(scope: Construct, props: ProjectFunctionProps) {
    super(scope, props.name);
    this.role = props.role;

    // Explicit and retained: one year satisfies PCI DSS 10.5.1 (a year of audit trail), and the
    // group outlives the function so a replaced or deleted function keeps its history.
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_YEAR,
    });
    this.logGroup.grantWrite(this.role);

    this.function = new lambda.Function(this, 'Function', {
      description: props.description.slice(0, 256),
      runtime: nodeRuntime,
      architecture: lambda.Architecture.ARM_64,
      handler: 'index.handler',
      code: codeFor(props.code, props.handler),
      role: this.role,
      memorySize: props.memoryMb ?? 512,
      timeout: Duration.seconds(props.timeoutSeconds ?? ROUTE_TIMEOUT_SECONDS),
      ...(props.reservedConcurrency ? { reservedConcurrentExecutions: props.reservedConcurrency } : {}),
      tracing: lambda.Tracing.ACTIVE,
      logGroup: this.logGroup,
      // No NODE_OPTIONS=--enable-source-maps: it parses the bundle's map at every cold start; the
      // logger maps a logged error's stack from the same map on the first error (shared/kernel/stack.ts).
      environment: props.environment,
      ...(props.network
        ? { vpc: props.network.vpc, vpcSubnets: props.network.subnets, securityGroups: props.network.securityGroups }
        : {}),
    });
    this.target = props.provisionedConcurrency
      ? new lambda.Alias(this, 'Live', { aliasName: 'live', version: this.function.currentVersion, provisionedConcurrentExecutions: props.provisionedConcurrency })
      : this.function;
  }

  addEnvironment(name: string, value: string): this {
    this.function.addEnvironment(name, value);
    return this;
  }

  /** Sets the table's env var and grants exactly `access` on the table and its indexes. */
  bindTable(table: ProjectTable, access: 'RO' | 'RW'): this {
    this.addEnvironment(table.definition.envVar, table.table.tableName);
    if (recordGrant(this.role, `table:${table.node.path}`, access)) {
      const arn = table.table.tableArn;
      this.role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: [...tableActions[access]],
          // Each index by name rather than index/*: the definition lists them all.
          resources: [arn, ...table.definition.indexes.map((index) => `${arn}/index/${index.name}`)],
        }),
      );
    }
    return this;
  }

  /** Adds a capability's env vars and (once per shared role) its grant. */
  addCapability(capability: Capability): this {
    for (const [name, value] of Object.entries(capability.environment)) this.addEnvironment(name, value);
    if (recordGrant(this.role, `capability:${capability.key}`, 'granted')) capability.grant(this.role);
    return this;
  }
}

/** What a stack offers the functions it builds: code, base env, its tables, and each one's profile. */
export interface FunctionContext {
  code: FunctionCode;
  environment: Record<string, string>;
  tables: Partial<Record<TableKey, ProjectTable>>;
}

/** Builds a function with its shared role, binds its tables and adds its capabilities. */
export function buildFunction(
  scope: Construct,
  roles: FunctionRoles,
  context: FunctionContext,
  spec: {
    name: string;
    handler: string;
    description: string;
    profile: AccessProfile;
    environment?: Record<string, string>;
    timeoutSeconds?: number;
    memoryMb?: number;
    reservedConcurrency?: number;
    provisionedConcurrency?: number;
  },
): ProjectFunction {
  const fn = new ProjectFunction(scope, {
    name: spec.name,
    handler: spec.handler,
    description: spec.description,
    code: context.code,
    role: roles.roleFor(spec.profile),
    environment: { ...context.environment, ...spec.environment },
    ...(spec.profile.network ? { network: spec.profile.network } : {}),
    ...(spec.timeoutSeconds ? { timeoutSeconds: spec.timeoutSeconds } : {}),
    ...(spec.memoryMb ? { memoryMb: spec.memoryMb } : {}),
    ...(spec.reservedConcurrency ? { reservedConcurrency: spec.reservedConcurrency } : {}),
    ...(spec.provisionedConcurrency ? { provisionedConcurrency: spec.provisionedConcurrency } : {}),
  });
  for (const [key, access] of Object.entries(spec.profile.tables) as [TableKey, 'RO' | 'RW'][]) {
    const table = context.tables[key];
    if (!table) {
      throw new Error(`${spec.name} needs the ${key} table, which ${Stack.of(scope).stackName} does not own or import.`);
    }
    fn.bindTable(table, access);
  }
  for (const capability of spec.profile.capabilities) fn.addCapability(capability);
  return fn;
}
