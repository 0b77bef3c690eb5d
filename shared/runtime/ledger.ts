import type { DocumentClient } from '../aws/dynamodb';
import { createDocumentClient } from '../aws/dynamodb';
import { createConsumerAuthenticator } from '../ledger/consumer-auth';
import { platformClock } from '../kernel/clock';
import { config, tableName } from '../kernel/config';
import { AppError } from '../kernel/errors';
import { createHttpHandler, type Authenticator, type HttpResult, type RequestOf } from '../http/handler';
import type { AnyRoute, RouteSource } from '../http/route';
import { uuidv7 } from '../kernel/ids';
import { createConsumerStore } from '../ledger/consumers';
import { fingerprintOf } from '../http/json';
import type { IdempotencyContext } from '../ledger/idempotency';
import { LedgerService } from '../ledger/service';

/**
 * What every ledger function shares, built once per Lambda container on first use: the document
 * client, the service, and the credential hook that admits only registered consumers' OIDC
 * client-credentials tokens.
 */
interface LedgerRuntime {
  client: DocumentClient;
  service: LedgerService;
  consumers: ReturnType<typeof createConsumerStore>;
}

let runtime: LedgerRuntime | undefined;

export function ledgerRuntime(): LedgerRuntime {
  if (runtime) return runtime;
  const client = createDocumentClient();
  const table = tableName('LEDGER_TABLE');
  runtime = {
    client,
    service: new LedgerService({
      client,
      table,
      clock: platformClock,
      ids: uuidv7,
      idempotencyRetentionSeconds: config.LEDGER_IDEMPOTENCY_RETENTION_SECONDS,
      feedSettleMs: config.LEDGER_FEED_SETTLE_MS,
    }),
    consumers: createConsumerStore(client, table, platformClock, uuidv7),
  };
  return runtime;
}

export interface LedgerCall<R> {
  request: RequestOf<R>;
  service: LedgerService;
  /** The calling consumer's id. */
  consumerId: string;
  /** The idempotency context of this request, scoped to the path's ledger (or the consumer). */
  idempotency(scope: string): IdempotencyContext | undefined;
}

/** The ledger's handler factory: the shared middleware stack with the consumer-token hook. */
export function ledgerHandler<R extends AnyRoute>(source: RouteSource<R>, serve: (call: LedgerCall<R>) => Promise<HttpResult>) {
  // Built on the first request, so loading a handler needs no configuration (tests, bundling).
  let verifier: Authenticator | undefined;
  const authenticate: Authenticator = (request) => {
    verifier ??= createConsumerAuthenticator({
      issuer: requiredIssuer(),
      audience: config.OIDC_AUDIENCE,
      jwksUrl: config.OIDC_JWKS_URL,
      findConsumerBySub: (sub) => ledgerRuntime().consumers.findConsumerBySub(sub),
      clock: platformClock,
    });
    return verifier(request);
  };
  return createHttpHandler(
    source,
    async (request, route) => {
      const consumerId = request.principal.consumerId!;
      return serve({
        request: request as RequestOf<R>,
        service: ledgerRuntime().service,
        consumerId,
        idempotency: (scope) =>
          request.idempotencyKey === undefined
            ? undefined
            : {
                scope,
                key: request.idempotencyKey,
                operation: route.operationId,
                fingerprint: fingerprintOf(route.operationId, { params: request.params, body: request.body }, 'hex'),
                requestId: request.requestId,
              },
      });
    },
    { authenticate },
  );
}

function requiredIssuer(): string {
  if (!config.OIDC_ISSUER) throw new AppError('service_unavailable', 'OIDC_ISSUER is not configured.');
  return config.OIDC_ISSUER;
}

