import { expect } from 'vitest';
import type { AnyRoute } from '../../shared/http/route';
import { AppError } from '../../shared/kernel/errors';

/**
 * For tests of the credential hooks (the wallet's authenticator, the ledger's): requests as a hook
 * sees them, and the one check that a credential was refused for the intended reason.
 */

/** A route the hooks are asked about (they read only its scopes when there are any). */
export const anyRoute = {} as AnyRoute;

/** A request carrying `token` as its Bearer credential. */
export const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` }, route: anyRoute });

/** base64url of a value's JSON: a JWT's header or payload, for tokens a test forges. */
export const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * A check bound to the hook's last refusal reason (what its `onRefused` recorded): the call is
 * refused 401 unauthenticated, the reason matches `reason` and the error's message `detail`, when given.
 */
export function unauthenticatedCheck(lastRefusal: () => string) {
  return async (promise: Promise<unknown>, reason?: RegExp, detail?: RegExp): Promise<void> => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error, 'refused').toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'unauthenticated', status: 401 });
    if (reason) expect(lastRefusal()).toMatch(reason);
    if (detail) expect((error as AppError).message).toMatch(detail);
  };
}
