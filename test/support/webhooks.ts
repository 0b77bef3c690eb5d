import { expect } from 'vitest';
import type { ReceivedRequest, Receiver } from '../integration/webhooks-receiver';
import type { Api } from './http';

/**
 * Webhook endpoints and events over HTTP, for the webhook suites: each maker is bound to the
 * suite's client, receiver and default credential (read when called: a suite makes them in its
 * beforeAll).
 */

export interface RegisteredEndpoint {
  id: string;
  secret: string;
  standard_webhooks_secret: string;
  client_id?: string;
  [field: string]: any;
}

/** Registers an endpoint at `path` of the receiver (201 asserted): (path, body, token, collection). */
export function endpointRegistrar(api: Api, receiver: () => Receiver, defaultToken: () => string) {
  return async (path: string, body: Record<string, unknown> = {}, token = defaultToken(), collection = '/v1/webhook_endpoints'): Promise<RegisteredEndpoint> => {
    const result = await api('POST', collection, { token, body: { url: receiver().route(path), ...body } });
    expect(result.status, result.text).toBe(201);
    return result.body as RegisteredEndpoint;
  };
}

/** Changes the tenant's fee plan over the API (200 asserted); answers its fee_plan.set event's id, the tenant's newest. */
export function feePlanChanger(api: Api, defaultToken: () => string) {
  return async (token = defaultToken()): Promise<string> => {
    const result = await api('PUT', '/v1/fee_plan', { token, body: { p2p: { bps: Math.floor(Math.random() * 500), flat: 0, min_fee: 0, max_fee: null } } });
    expect(result.status, result.text).toBe(200);
    const events = await api('GET', '/v1/webhook_events?type=fee_plan.set&limit=1', { token });
    return events.body.data[0].id as string;
  };
}

/** The requests the receiver got at `path`, of one event when named (its id read from `idHeader`). */
export function requestsReceived(receiver: () => Receiver, idHeader: 'webhook-id' | 'x-wallet-event-id') {
  return (path: string, eventId?: string): ReceivedRequest[] => receiver().requests(path).filter((request) => eventId === undefined || request.headers[idHeader] === eventId);
}
