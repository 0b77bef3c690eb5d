/**
 * WalletTable keys of the webhook entities (chart: docs/data-model.md, docs/webhooks.md). An
 * endpoint belongs to an owner: the tenant itself, or one client (merchant) of the tenant. Each
 * owner has its own gsi1 partitions for its endpoints and its delivery attempts, so the relay reads
 * exactly the endpoints an event can reach and a merchant lists only its own.
 */

export interface Owner {
  tenantId: string;
  /** Set for a merchant endpoint. */
  clientId?: string;
}

const ownerPrefix = (owner: Owner) => (owner.clientId ? `TENANT#${owner.tenantId}#CLIENT#${owner.clientId}` : `TENANT#${owner.tenantId}`);

export const webhookKeys = {
  endpoint: (endpointId: string) => ({ pk: `WEBHOOK_ENDPOINT#${endpointId}`, sk: 'WEBHOOK_ENDPOINT' }),
  /** gsi1: an owner's live endpoints, newest first by id (a deleted endpoint leaves this partition). */
  endpointsOf: (owner: Owner) => `${ownerPrefix(owner)}#WEBHOOK_ENDPOINTS`,
  /** How many live endpoints an owner has: bounded in the same transaction as a create. */
  endpointCount: (owner: Owner) => ({ pk: `${ownerPrefix(owner)}#WEBHOOK_ENDPOINT_COUNT`, sk: 'COUNT' }),
  /**
   * One delivery of an event to an endpoint: the automatic one (one per event and endpoint, which
   * is what makes the relay idempotent) or a manual redelivery (its own id).
   */
  delivery: (eventId: string, endpointId: string, redeliveryId?: string) => ({
    pk: `DELIVERY#${eventId}#${endpointId}${redeliveryId ? `#${redeliveryId}` : ''}`,
    sk: 'DELIVERY',
  }),
  /**
   * gsi1 of automatic deliveries while they are recoverable (skipped or failed): an endpoint's by
   * event creation time (`<created_at>#<eventId>`, kept on the delivery from the start), which
   * recovery reads by window, oldest first. A delivery enters it when it is skipped or fails and
   * leaves it when recovery arms it again, so pending and delivered ones cost no index writes.
   */
  deliveriesOf: (endpointId: string) => `WEBHOOK_ENDPOINT#${endpointId}#DELIVERIES`,
  deliveryOrder: (eventCreatedAt: string, eventId: string) => `${eventCreatedAt}#${eventId}`,
  /** The last delivery a recovery armed for the endpoint, which the next one armed waits for (./recovery-chain.ts). */
  recoveryChain: (endpointId: string) => ({ pk: `WEBHOOK_ENDPOINT#${endpointId}`, sk: 'RECOVERY_CHAIN' }),
  /** The endpoint's failure streak (./health.ts), beside the endpoint in its partition. */
  health: (endpointId: string) => ({ pk: `WEBHOOK_ENDPOINT#${endpointId}`, sk: 'HEALTH' }),
  /** One hour of the endpoint's attempt counters (`hour` = `YYYY-MM-DDTHH`, UTC). */
  statsHour: (endpointId: string, hour: string) => ({ pk: `WEBHOOK_ENDPOINT#${endpointId}`, sk: `STATS#${hour}` }),
  /** An attempt lives in its delivery's partition; gsi1 lists an owner's attempts newest first. */
  attempt: (deliveryPk: string, attemptId: string) => ({ pk: deliveryPk, sk: `ATTEMPT#${attemptId}` }),
  attemptsOf: (owner: Owner) => `${ownerPrefix(owner)}#WEBHOOK_ATTEMPTS`,
  /**
   * gsi2: an owner's attempts of one event (every delivery and redelivery of it), newest first by
   * id: the owner's prefix keeps another tenant's (or merchant's) attempts of that id out.
   */
  eventAttemptsOf: (owner: Owner, eventId: string) => `${ownerPrefix(owner)}#WEBHOOK_EVENT#${eventId}#ATTEMPTS`,
};
