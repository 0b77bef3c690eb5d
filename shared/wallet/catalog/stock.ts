import type * as z from '../../kernel/zod';
import { getItem, queryPage, type Page } from '../../aws/store';
import type { Principal } from '../../http/principal';
import { AppError } from '../../kernel/errors';
import type { StoreDeps } from '../deps';
import type { ClientRecord } from './clients';
import { catalogKeys } from './keys';
import { clientOfferingHead, invalidField, movementItem, movementView, toVariantRecord, variantItem, variantView, type StockMovement, type Variant, type VariantRecord } from './records';
import type { movementListQuery, stockChange } from './schemas';
import { commitVersioned, versionedPut, withFreshReads } from '../../aws/fresh-reads';

/**
 * Stock is held and released like money (docs/catalog.md). Per variant: on_hand, reserved, and
 * available = on_hand − reserved. After every write on_hand ≥ 0, reserved ≥ 0, and reserved ≤
 * on_hand unless backorders are allowed. Every change writes its stock movement in the same
 * transaction as the count it changes, conditioned on the variant's version, so concurrent changes
 * serialize and the log replays to the count.
 */

/**
 * A merchant's stock change (spec part 4 item 9): `delta` or `set_to`, with a reason; reserved
 * units are not touched. With `expected_on_hand` it is a compare-and-swap.
 * Refuses: offering_not_found, not_found (no such variant in the offering), invalid_transition
 * (an archived variant), invalid_request (below zero, or below the reserved units without
 * backorders), conflict (on_hand is not expected_on_hand).
 */
export async function changeStock(
  deps: StoreDeps,
  actor: Principal,
  client: ClientRecord,
  offeringId: string,
  variantId: string,
  change: z.infer<typeof stockChange>,
): Promise<{ variant: Variant; movement: StockMovement }> {
  await clientOfferingHead(deps, client.id, offeringId);
  return withFreshReads(async () => {
    const item = await getItem(deps, catalogKeys.variant(offeringId, variantId));
    if (!item) throw new AppError('not_found', `No variant ${variantId} in offering ${offeringId}.`);
    const before = toVariantRecord(item);
    if (before.status === 'archived') throw new AppError('invalid_transition', `Variant ${variantId} is archived: its stock no longer changes.`);
    if (change.expected_on_hand !== undefined && change.expected_on_hand !== before.on_hand) {
      throw new AppError('conflict', `on_hand is ${before.on_hand}, not the expected ${change.expected_on_hand}.`);
    }
    const onHand = change.set_to ?? before.on_hand + change.delta!;
    if (onHand < 0) throw invalidField(change.set_to === undefined ? 'delta' : 'set_to', `would leave ${onHand} on hand`);
    if (onHand < before.reserved && !before.allow_backorder) {
      throw invalidField(change.set_to === undefined ? 'delta' : 'set_to', `would leave ${onHand} on hand, fewer than the ${before.reserved} reserved`);
    }
    if (onHand > 1_000_000_000) throw invalidField('delta', 'would leave more than 1000000000 on hand');
    const after: VariantRecord = { ...before, on_hand: onHand, updated_at: deps.clock.now().toISOString(), version: before.version + 1 };
    const { item: logged, movement } = movementItem(deps, actor, after, { kind: 'adjustment', quantity: onHand - before.on_hand, reason: change.reason });
    await commitVersioned(deps, [versionedPut(deps, variantItem(after), before.version), logged], [0]);
    return { variant: variantView(after), movement };
  });
}

/** The client's stock log, newest first, or one variant's. */
export async function listMovements(deps: StoreDeps, client: ClientRecord, query: z.infer<typeof movementListQuery>): Promise<Page<StockMovement>> {
  const page = query.variant_id
    ? await queryPage(deps, {
        index: 'gsi2',
        partition: catalogKeys.variantMovements(query.variant_id),
        cursor: query.cursor, created: query,
        limit: query.limit,
        // A variant of another client lists nothing, as if it had no movements.
        filter: { expression: 'client_id = :client', values: { ':client': client.id } },
        scanBudget: 1_000,
      })
    : await queryPage(deps, { index: 'gsi1', partition: catalogKeys.clientMovements(client.id), cursor: query.cursor, created: query, limit: query.limit });
  return { data: page.items.map(movementView), next_cursor: page.next_cursor };
}
