import { PROBLEM_CONTENT_TYPE } from '../kernel/errors';
import type { HttpResult } from './handler';

/**
 * The answer of an idempotent write, ledger or wallet: the exact bytes stored under its
 * Idempotency-Key, so a replay returns the first answer byte for byte.
 */
export interface Outcome {
  status: number;
  /** The exact response bytes; a replay returns these unchanged. */
  body: string;
  replayed: boolean;
}

/** An outcome as the handler's answer: a remembered refusal is problem+json; replays are marked. */
export function outcomeResult(outcome: Outcome): HttpResult {
  const headers: Record<string, string> = {};
  if (outcome.status >= 400) headers['content-type'] = PROBLEM_CONTENT_TYPE;
  if (outcome.replayed) headers['idempotent-replayed'] = 'true';
  return { status: outcome.status, rawBody: outcome.body, headers };
}
