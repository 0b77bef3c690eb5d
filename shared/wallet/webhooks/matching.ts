import { filterSelects, isMerchantType } from '../../events/names';

/**
 * Which endpoints receive an event (spec part 6 "Endpoints and filters"). The tenant is already
 * settled by the partition the endpoints were read from; this is the rest:
 *  - a tenant endpoint receives every type, merchants' events included, narrowed by its filters;
 *  - a merchant endpoint receives only product.*, order.*, inventory.* and import.* events of its
 *    own client, whatever its filters say, narrowed further by its filters;
 *  - `webhook_endpoint.disabled` goes to the tenant's other endpoints, never to the one it names
 *    (that one is disabled, and a recovery would otherwise send it its own notice).
 */

export interface Subscriber {
  /** Absent where only the filters matter (tests, documentation). */
  id?: string;
  client_id: string | null;
  event_filters: readonly string[] | null;
}

export interface Routable {
  type: string;
  client_id?: string;
  data?: Record<string, unknown>;
}

export const DISABLED_EVENT = 'webhook_endpoint.disabled';

export function endpointReceives(endpoint: Subscriber, event: Routable): boolean {
  if (endpoint.client_id !== null) {
    if (!isMerchantType(event.type) || event.client_id !== endpoint.client_id) return false;
  }
  if (event.type === DISABLED_EVENT && endpoint.id !== undefined && (event.data?.webhook_endpoint as { id?: string } | undefined)?.id === endpoint.id) return false;
  return endpoint.event_filters === null || endpoint.event_filters.some((filter) => filterSelects(filter, event.type));
}
