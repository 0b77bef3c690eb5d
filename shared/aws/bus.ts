import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { retryingOnce } from '../kernel/lazy';
import type { BusEvent, EventBusTransport } from './transport';

/**
 * The event bus of a function that publishes (the relay): EventBridge PutEvents on EVENT_BUS_NAME,
 * unless the embedded platform installed its in-memory bus. The SDK client (./bus-client.ts) is
 * loaded on the first publish, not at import.
 */

/** PutEvents takes at most 10 entries per call. */
const PUT_EVENTS_MAX_ENTRIES = 10;

const containerEventBridge = retryingOnce(async () => {
  const sdk = await import('./bus-client');
  return { sdk, client: sdk.newEventBridgeClient() };
});

/** PutEvents on EVENT_BUS_NAME through `client`, the container's by default (tests pass a mocked one). */
export function eventBridgeTransport(client?: EventBridgeClient): EventBusTransport {
  return {
    async publish(events: readonly BusEvent[]) {
      const bus = process.env.EVENT_BUS_NAME;
      if (!bus) throw new Error('EVENT_BUS_NAME is not set: this function may not publish events');
      const { sdk, client: containerClient } = await containerEventBridge();
      for (let start = 0; start < events.length; start += PUT_EVENTS_MAX_ENTRIES) {
        const entries = events.slice(start, start + PUT_EVENTS_MAX_ENTRIES).map((event) => ({ EventBusName: bus, Source: event.source, DetailType: event.detailType, Detail: event.detail }));
        const result = await (client ?? containerClient).send(new sdk.PutEventsCommand({ Entries: entries }));
        if ((result.FailedEntryCount ?? 0) > 0) {
          const codes = (result.Entries ?? []).flatMap((entry) => (entry.ErrorCode ? [entry.ErrorCode] : []));
          throw new Error(`PutEvents failed for ${result.FailedEntryCount} of ${entries.length} entries: ${[...new Set(codes)].join(', ')}`);
        }
      }
    },
  };
}

let installed: EventBusTransport | undefined;

/** Called by the embedded platform only, before any handler runs. */
export function installEventBusTransport(transport: EventBusTransport | undefined): void {
  installed = transport;
}

const containerTransport = eventBridgeTransport();

export const eventBusTransport = (): EventBusTransport => installed ?? containerTransport;
