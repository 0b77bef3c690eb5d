import { filterSelects, isMerchantType } from '../../events/names';

/**
 * Which endpoints receive an event (spec part 6 "Endpoints and filters"). The tenant is already
 * settled by the partition the endpoints were read from; this is the rest:
 *  - a tenant endpoint receives every type, merchants' events included, narrowed by its filters;
 *  - a merchant endpoint receives only product.*, order.*, inventory.* and import.* events of its
 *    own client, whatever its filters say, narrowed further by its filters.
 */

export interface Subscriber {
  client_id: string | null;
  event_filters: readonly string[] | null;
}

export interface Routable {
  type: string;
  client_id?: string;
}

export function endpointReceives(endpoint: Subscriber, event: Routable): boolean {
  if (endpoint.client_id !== null) {
    if (!isMerchantType(event.type) || event.client_id !== endpoint.client_id) return false;
  }
  return endpoint.event_filters === null || endpoint.event_filters.some((filter) => filterSelects(filter, event.type));
}
