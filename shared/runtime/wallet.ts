import { createHttpHandler, type Authenticator, type HttpResult, type RequestOf } from '../http/handler';
import type { Principal } from '../http/principal';
import type { AnyRoute, RouteSource } from '../http/route';
import { retryingOnce } from '../kernel/lazy';
import { createWalletAuthenticator } from '../wallet/auth/credentials';
import { loadTokenSigner } from '../wallet/auth/tokens';
import type { WalletDeps } from '../wallet/deps';
import { provideTokenSigner, walletRuntime } from './wallet-deps';
import { keepAnswer, type KeptAnswer } from '../wallet/saga/kept-answer';
import { outcomeResult } from '../http/outcome';

/**
 * The wallet's composition root: what the wallet, auth and console functions share, built once per
 * Lambda container on first use (never at import, so loading a handler needs no configuration):
 * the services' dependencies (./wallet-deps.ts: the WalletTable client, the clock and id source,
 * the ledger client), the token signer and the credential hook. Only functions/, local/, scripts,
 * benchmarks and tests import this module; workers import ./wallet-deps.ts alone.
 */

provideTokenSigner(retryingOnce(() => loadTokenSigner()));

export { walletRuntime };

export interface WalletCall<R> {
  request: RequestOf<R>;
  principal: Principal;
  runtime: WalletDeps;
}

/** The wallet's handler factory: the shared middleware stack with the wallet credential hook. */
export function walletHandler<R extends AnyRoute>(route: RouteSource<R>, serve: (call: WalletCall<R>) => Promise<HttpResult>) {
  let verifier: Authenticator | undefined;
  const authenticate: Authenticator = (request) => {
    verifier ??= createWalletAuthenticator(walletRuntime());
    return verifier(request);
  };
  return createHttpHandler(
    route,
    async (request, served) => {
      const call = { request: request as RequestOf<R>, principal: request.principal, runtime: walletRuntime() };
      if (served.idempotency?.keptBy !== 'answer' || request.idempotencyKey === undefined) return serve(call);
      // The key is the handler factory's: the function's first answer is kept under it and replayed.
      const outcome = await keepAnswer(
        call.runtime,
        {
          operation: served.operationId,
          idempotencyKey: request.idempotencyKey,
          request: { params: request.params, query: request.query, body: request.body },
          principal: request.principal,
          requestId: request.requestId,
        },
        async () => answerOf(served, await serve(call)),
      );
      const result = outcomeResult(outcome);
      return { ...result, headers: { ...outcome.headers, ...result.headers } };
    },
    { authenticate },
  );
}

/** A function's answer as the bytes a replay gives back. */
function answerOf(route: AnyRoute, result: HttpResult): KeptAnswer {
  if ('text' in result) throw new Error(`${route.operationId}: a kept answer is JSON`);
  const status = result.status ?? route.response.status;
  const body = 'rawBody' in result ? result.rawBody : JSON.stringify(result.body);
  return { status, body, ...(result.headers ? { headers: result.headers } : {}) };
}

