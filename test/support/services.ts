import { expect } from 'vitest';
import type { Outcome } from '../../shared/http/outcome';
import type { Principal } from '../../shared/http/principal';
import type { ManualClock } from '../../shared/kernel/clock';
import { AppError } from '../../shared/kernel/errors';
import { uuidv7 } from '../../shared/kernel/ids';
import type { WalletDeps } from '../../shared/wallet/deps';
import { SWEEP_AFTER_MS } from '../../shared/wallet/saga/key-record';
import { sweepOperations } from '../../shared/wallet/saga/sweeper';

/**
 * Helpers for tests that call the wallet's services directly (test/integration), not over HTTP.
 */

/** The AppError a service call was refused with; fails the test when it succeeded or threw anything else. */
export async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

/** A fresh idempotency key and request id, as a client request would carry. */
export const requestIds = () => ({ idempotencyKey: uuidv7(), requestId: uuidv7() });

/** A maker of API-key principals of a tenant holding these scopes (a new key id each time). */
export const apiKeyPrincipals =
  (scopes: readonly string[], options: { sandbox?: boolean } = {}) =>
  (tenantId: string): Principal => ({ kind: 'api_key', id: `key-${uuidv7()}`, tenantId, ...(options.sandbox ? { sandbox: true } : {}), scopes: new Set(scopes) });

/**
 * A saga whose first try crashed, finished the way `how` says: the client's retry with the same key,
 * or the sweeper once the claim is old enough (then the client's retry must be a replay).
 * `sweepEarly`: the sweeper also runs once before the claim is old enough.
 */
export async function finishCrashedSaga(
  how: 'retry' | 'sweep',
  again: () => Promise<Outcome>,
  at: { runtime: WalletDeps; clock: ManualClock; sweepEarly?: boolean },
): Promise<Outcome> {
  if (how === 'retry') return again();
  if (at.sweepEarly) await sweepOperations(at.runtime);
  at.clock.advance(SWEEP_AFTER_MS + 1_000);
  expect(await sweepOperations(at.runtime)).toBeGreaterThanOrEqual(1);
  const replay = await again();
  expect(replay.replayed).toBe(true);
  return replay;
}
