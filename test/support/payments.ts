import { uuidv7 } from '../../shared/kernel/ids';
import type { CallResult } from './platform';
import type { Api } from './http';

/**
 * Payments, orders and what they earn, over HTTP as a client makes them. The answers are returned as they
 * came (a refusal is some tests' subject); the caller asserts.
 */

/** A payment of the user to the merchant in USD with a fresh idempotency key: POST /v1/payments. */
export function payMerchant(api: Api, token: string, payment: { userId: string; merchantId: string; amount: number; capture?: boolean }): Promise<CallResult<any>> {
  const body = { user_id: payment.userId, merchant_id: payment.merchantId, amount: payment.amount, currency: 'USD', ...(payment.capture === undefined ? {} : { capture: payment.capture }) };
  return api('POST', '/v1/payments', { token, key: uuidv7(), body });
}

/** A user's rewards (balances and history) as the API answers them: GET /v1/users/{id}/rewards. */
export async function rewardsOf(api: Api, userId: string, token: string): Promise<any> {
  return (await api('GET', `/v1/users/${userId}/rewards`, { token })).body;
}

export type OrderLine = { variant_id: string; quantity: number };

/** An order of the client's lines placed with this credential: POST /v1/orders. */
export function placeOrder(api: Api, token: string, clientId: string, lines: OrderLine[], key = uuidv7()): Promise<CallResult<any>> {
  return api('POST', '/v1/orders', { token, key, body: { client_id: clientId, lines } });
}

/** POST /v1/orders/{id}/pay. */
export function payForOrder(api: Api, token: string, orderId: string, key = uuidv7()): Promise<CallResult<any>> {
  return api('POST', `/v1/orders/${orderId}/pay`, { token, key });
}

/** POST /v1/orders/{id}/cancel. */
export function cancelPlacedOrder(api: Api, token: string, orderId: string, key = uuidv7()): Promise<CallResult<any>> {
  return api('POST', `/v1/orders/${orderId}/cancel`, { token, key });
}
