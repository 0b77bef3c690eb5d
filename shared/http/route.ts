import type * as z from '../kernel/zod';
import type { ErrorCode } from '../kernel/errors';
import type { PrincipalKind } from './principal';
import type { TableKey } from '../tables';

/**
 * One endpoint, described once. The CDK stacks build a Lambda and an API Gateway method from it,
 * the local gateway routes to it, the OpenAPI documents are generated from it, and the handler
 * factory validates requests and enforces access with it.
 */

export type Api = 'wallet' | 'auth' | 'ledger' | 'console';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type Access =
  | 'public'
  | {
      /** Principal kinds that may call the route at all. */
      principals: readonly PrincipalKind[];
      /** The caller needs at least one of these scopes; empty means none is needed. */
      scopes: readonly string[];
      /** The code answered to a principal kind not in `principals` (default `forbidden`). */
      wrongPrincipal?: ErrorCode;
      /** The code answered to an admitted kind that lacks the scopes (default `insufficient_scope`). */
      missingScope?: ErrorCode;
      /**
       * API keys bound to a client may call the route: its client's own routes and Explore. A bound
       * key acts only on its client, never tenant-wide, so every other route refuses it (403 forbidden).
       */
      boundKeys?: boolean;
    };

export interface IdempotencyRule {
  required: boolean;
  minLength: number;
  maxLength: number;
  /**
   * Who keeps the key and its answer: `operation`, the route's own function (a saga, the ledger's
   * idempotency store, tenant provisioning), which reads `request.idempotencyKey`; `answer`, the
   * wallet's handler factory, which keeps the function's first answer under the key (the saga's key
   * record and caller-scoped fingerprint: shared/wallet/saga/kept-answer.ts) and replays it.
   */
  keptBy: 'operation' | 'answer';
}

export type TableAccess = Partial<Record<TableKey, 'RO' | 'RW'>>;

/**
 * What a wallet-side function needs besides its tables; the CDK stacks grant exactly this.
 *  - `signsTokens`: mints wallet tokens (KMS Sign on the current signing key);
 *  - `callsLedger`: calls the ledger API (runs in the ledger VPC, reads the client credentials).
 */
export type RouteCapability = 'signsTokens' | 'callsLedger';

/** Any zod schema a route describes a part with (zod/mini's, as every schema of the platform). */
export type RouteSchema = z.core.$ZodType;

export interface RouteDefinition<
  P extends RouteSchema = RouteSchema,
  Q extends RouteSchema = RouteSchema,
  B extends RouteSchema = RouteSchema,
  R extends RouteSchema = RouteSchema,
> {
  /** Unique, camelCase; the OpenAPI operationId and the Lambda's name. */
  operationId: string;
  method: HttpMethod;
  /** API Gateway style template: `/v1/ledgers/{ledgerId}/postings`. */
  path: string;
  api: Api;
  /** Entry point under functions/, without extension; it exports `handler`. */
  handler: string;
  summary: string;
  /**
   * What the operation's schemas cannot say, for its OpenAPI description: a field required or
   * refused depending on the caller (a user token acts for its own user), a rule across fields no
   * schema expresses. Everything a schema can say belongs in the schema.
   */
  description?: string;
  tags: readonly string[];
  access: Access;
  request: {
    params?: P;
    query?: Q;
    /** Absent: the route takes no body. A schema that accepts `undefined` makes the body optional. */
    body?: B;
    /** Request headers the route reads besides Authorization and Idempotency-Key (documented in OpenAPI). */
    headers?: readonly { name: string; description: string; required: boolean }[];
  };
  response: {
    status: number;
    body: R;
    /** The media type of a success; `application/json` unless said (the docs page is `text/html`). */
    contentType?: string;
    description: string;
    /** Other success statuses the route answers with the same body (e.g. 200 for a repeated create). */
    also?: readonly { status: number; description: string }[];
  };
  /**
   * Codes the route's function may answer besides those the platform answers for it (400, 401,
   * 403, 409, 413, 429, 500, 503 as its access, input and idempotency say: ./answers.ts).
   */
  errors: readonly ErrorCode[];
  idempotency?: IdempotencyRule;
  /** Tables the function touches and how; the stack grants exactly this. */
  tables: TableAccess;
  /** Capabilities beyond the tables (wallet, auth and console routes only); none by default. */
  capabilities?: readonly RouteCapability[];
  /** Queues the function sends to (QUEUE_URL_* env and a send grant), as on workers. */
  sendsTo?: readonly string[];
  /** Lambda settings for a route that needs more than the defaults. */
  function?: {
    /** Default ROUTE_TIMEOUT_SECONDS. */
    timeoutSeconds?: number;
    memoryMb?: number;
    /** Requests served at once (reserved concurrency in AWS); default by API (shared/http/bulkheads.ts). */
    maxConcurrency?: number;
  };
}

export type AnyRoute = RouteDefinition<RouteSchema, RouteSchema, RouteSchema, RouteSchema>;

/**
 * How a function names its route: the route, or a loader of it (`async () => (await
 * import('…/routes')).someRoutes.op`), which the handler factory calls on the first request. A
 * loader keeps the manifest module of the function's area (the zod schemas of every route in it)
 * out of the function's import, where Lambda's init pays for it (docs/performance.md).
 */
export type RouteSource<R extends AnyRoute> = R | (() => Promise<R>);

/** Keeps the schema types of a route literal so handlers get typed params, query and body. */
export function defineRoute<P extends RouteSchema, Q extends RouteSchema, B extends RouteSchema, R extends RouteSchema>(
  route: RouteDefinition<P, Q, B, R>,
): RouteDefinition<P, Q, B, R> {
  return route;
}

/** `/v1/ledgers/{ledgerId}` to a matcher that returns the path parameters, or null. */
export function compilePath(template: string): (path: string) => Record<string, string> | null {
  const names: string[] = [];
  const pattern = template
    .split('/')
    .map((segment) => {
      const match = /^\{(\w+)\+?\}$/.exec(segment);
      if (!match) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(match[1]!);
      return segment.endsWith('+}') ? '(.+)' : '([^/]+)';
    })
    .join('/');
  const regex = new RegExp(`^${pattern}/?$`);
  return (path) => {
    const found = regex.exec(path);
    if (!found) return null;
    const params: Record<string, string> = {};
    names.forEach((name, index) => {
      params[name] = decodeURIComponent(found[index + 1]!);
    });
    return params;
  };
}

/** Idempotency-Key bounds: spec part 8 (1..255 for ledger postings and reversals). Required keys are the operation's (money moves as a saga). */
export const idempotencyRequired = (maxLength = 255): IdempotencyRule => ({ required: true, minLength: 1, maxLength, keptBy: 'operation' });
/**
 * Accepted and honoured when sent (a retry answers the first answer), never required: Stripe's
 * rule for every POST the spec does not make require it. By default the handler factory keeps the
 * answer; an operation that keeps its own key (a saga) says `operation`.
 */
export const idempotencyOptional = (maxLength = 255, keptBy: IdempotencyRule['keptBy'] = 'answer'): IdempotencyRule => ({ required: false, minLength: 1, maxLength, keptBy });

/** A route function's timeout unless it names one (the stacks and the embedded gateway both use it: its invocations' deadline). */
export const ROUTE_TIMEOUT_SECONDS = 10;
