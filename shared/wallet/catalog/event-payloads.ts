import * as z from '../../kernel/zod';
import type { EventPayloads } from '../../events/names';
import { catalogImport, offering, variant } from './schemas';

/** The `data` of the catalog events (products, imports, low stock; docs/webhooks.md), collected by shared/event-types.ts. */
export const catalogEventPayloads = {
  'product.created': z.object({ offering }).check(z.meta({ id: 'ProductCreatedEventData' })),
  'product.updated': z.object({ offering }).check(z.meta({ id: 'ProductUpdatedEventData' })),
  'product.archived': z.object({ offering }).check(z.meta({ id: 'ProductArchivedEventData' })),
  'import.completed': z.object({ import: catalogImport }).check(z.meta({ id: 'ImportCompletedEventData' })),
  'inventory.low_stock': z.object({ variant }).check(z.meta({ id: 'InventoryLowStockEventData' })),
} as const satisfies EventPayloads;
