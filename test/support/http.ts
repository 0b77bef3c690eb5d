import { expect } from 'vitest';
import { errorCatalogue, type ErrorCode } from '../../shared/kernel/errors';
import { uuidv7 } from '../../shared/kernel/ids';
import { call, type CallResult } from './platform';

/**
 * How every API test talks to the platform and checks a refusal: one HTTP client and one problem
 * assertion, so every suite calls and asserts the same way.
 */

export interface RequestOptions {
  /** The bearer credential; the client's default when omitted. */
  token?: string;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  /** The Idempotency-Key header. */
  key?: string;
}

export type Api = (method: string, path: string, options?: RequestOptions) => Promise<CallResult<any>>;

/** A client of one API: its base URL, and the credential it sends unless a call names another. */
export function apiClient(base: string | (() => string), defaultToken?: () => string | undefined): Api {
  return (method, path, options = {}) => {
    const headers = { ...(options.key === undefined ? {} : { 'idempotency-key': options.key }), ...options.headers };
    const token = 'token' in options ? options.token : defaultToken?.();
    return call(typeof base === 'string' ? base : base(), method, path, { token, body: options.body, rawBody: options.rawBody, headers });
  };
}

/**
 * The answer is the catalogue's problem for `code`: its status, `application/problem+json`, and the
 * code in the body. The response text is the failure message.
 */
export function expectProblem(result: CallResult<any>, code: ErrorCode, label?: string): void {
  const body = typeof result.body === 'object' && result.body !== null ? result.body : {};
  const seen = { status: result.status, contentType: result.headers.get('content-type'), code: body.code, type: body.type, title: body.title };
  const wanted = { status: errorCatalogue[code].status, contentType: 'application/problem+json', code, type: `urn:wallet:problem:${code}`, title: errorCatalogue[code].title };
  expect(label ? { label, ...seen } : seen, result.text).toEqual(label ? { label, ...wanted } : wanted);
}

/** The ids of a list's items, in its order. */
export const idsOf = (items: readonly { id: string }[]): string[] => items.map((item) => item.id);

/**
 * Sends a request as a client would (the typed client does): an answer marked `retryable` (503 on a
 * busy machine, 409 idempotency_in_flight) is sent again with the same Idempotency-Key, after a
 * growing pause, until it is final (at most 20 sends). `send` takes the key.
 */
export async function sendUntilFinal(send: (key: string) => Promise<CallResult<any>>): Promise<CallResult<any>> {
  const key = uuidv7();
  for (let attempt = 1; ; attempt += 1) {
    const answer = await send(key);
    if (answer.body?.retryable !== true || attempt === 20) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
  }
}
