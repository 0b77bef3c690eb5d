import { call, type CallResult } from './platform';

/**
 * The sandbox processor's and payout rail's side of their webhooks: the secret they sign with (the
 * platform sets it when it starts) and a signed request posted as they post it.
 */

export const sandboxSecret = (): string => process.env.SANDBOX_PROCESSOR_SECRET!;

/** Now in Unix seconds: a signed request's timestamp. */
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** A signed request (its exact body and headers) posted to a webhook path, without a credential. */
export const postSigned = (base: string, path: string, request: { body: string; headers: Record<string, string> }): Promise<CallResult<any>> =>
  call(base, 'POST', path, { rawBody: request.body, headers: request.headers });
