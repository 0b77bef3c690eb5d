import type * as z from '../../kernel/zod';
import type { TransactItem } from '../../aws/dynamodb';
import { MAX_TRANSACT_ITEMS } from '../../aws/store';
import { outboxItem } from '../../events/outbox';
import { canonicalJson } from '../../http/json';
import type { Outcome } from '../../http/outcome';
import type { Principal } from '../../http/principal';
import { AppError } from '../../kernel/errors';
import type { Actor, StoreDeps, WalletDeps } from '../deps';
import { defineOperation } from '../saga/registry';
import { runOperation } from '../saga/engine';
import { readClient, type ClientRecord } from './clients';
import type { ImportProduct, ImportVariant, readImportFile } from './import-files';
import { assertUnchanged, pinOf, readCatalogState, type CatalogState, type ImportPin } from './import-reads';
import { catalogKeys } from './keys';
import {
  isLive,
  movementItem,
  offeringItem,
  pricingModeOf,
  productEvent,
  publishedCountItem,
  refGuard,
  variantItem,
  priceOf,
  type OfferingRecord,
  type OfferingWithVariants,
  type VariantRecord,
} from './records';
import type { catalogImport, importRequest } from './schemas';
import { newOffering } from './offerings';
import { versionedPut } from '../../aws/fresh-reads';
import { newVariant, newVariantWrites } from './variants';

/**
 * Bulk import (docs/catalog.md): products matched by `ref`, variants by `sku`; every row checked
 * against the file and the catalog before anything is written; then everything commits in ONE
 * transaction with the import's record, its events and its Idempotency-Key's answer, or nothing
 * does. A file that changes nothing writes only its record. An import never retires a variant it
 * does not mention; `status: archived` archives a product. Bounds: IMPORT_MAX_BYTES,
 * IMPORT_MAX_ROWS, and the one transaction's 100 writes (a larger change is refused: split it).
 * The first try pins the versions it read, and every try plans only against those
 * (./import-reads.ts): a resumed import completes as first asked or is refused, never applied
 * over a later change.
 */

export type CatalogImport = z.infer<typeof catalogImport>;
type ImportRequest = z.infer<typeof importRequest> & { client_id: string };

interface Plan {
  items: TransactItem[];
  result: Omit<CatalogImport, 'id' | 'created_at'>;
  /** The change to the client's count of published offerings (one write for the whole import). */
  published: number;
}

/** The file reader and its schemas (every catalog schema) load with the first import read, not at the function's import. */
const readFile = async (...args: Parameters<typeof readImportFile>) => (await import('./import-files')).readImportFile(...args);

/**
 * What the file would do to the catalog as read (`state`); reads nothing. Refuses: invalid_request
 * with every error found.
 */
function planImport(deps: StoreDeps, actor: Actor, client: ClientRecord, request: ImportRequest, file: ReturnType<typeof readImportFile>, state: CatalogState): Plan {
  const { products } = file;
  const errors = [...file.errors];
  const { existing } = state;
  products.forEach((product, index) => {
    for (const variant of product.variants) {
      if (existing[index]?.variants.some((known) => known.sku === variant.sku)) continue;
      if (state.skuHolders.get(variant.sku)) errors.push({ field: `${variant.at}.sku`, message: `${variant.sku} is used by another product of this catalog` });
    }
  });

  const result: Plan['result'] = { client_id: client.id, format: request.format, dry_run: request.dry_run, products: products.length, rows: 0, created: [], updated: [], archived: [], unchanged: [] };
  const items: TransactItem[] = [];
  const plan: Plan = { items, result, published: 0 };
  products.forEach((product, index) => {
    result.rows += Math.max(1, product.variants.length);
    try {
      const found = existing[index];
      if (!found) return create(deps, actor, client, product, plan);
      update(deps, actor, client, product, found, plan);
    } catch (error) {
      if (!(error instanceof AppError) || error.status !== 400) throw error;
      errors.push(...(error.errors ?? [{ field: product.at, message: error.message }]));
    }
  });
  if (errors.length > 0) throw new AppError('invalid_request', `The file has ${errors.length} error(s); nothing was imported.`, { errors: errors.slice(0, 100) });
  if (plan.published !== 0) items.push(publishedCountItem(deps, client.id, plan.published));
  // The import's record, its event and the Idempotency-Key's answer join these writes.
  if (items.length + 3 > MAX_TRANSACT_ITEMS) {
    throw new AppError('invalid_request', `This import needs ${items.length + 3} writes; one import commits at most ${MAX_TRANSACT_ITEMS} at once: split the file.`, {
      errors: [{ field: 'content', message: 'too many changes for one import' }],
    });
  }
  return plan;
}

const invalidAt = (field: string, message: string) => new AppError('invalid_request', message, { errors: [{ field, message }] });

function variantInput(variant: ImportVariant) {
  return { ...variant, pricing_mode: pricingModeOf(variant), inventory: variant.inventory ? { track_inventory: true, on_hand: 0, low_stock_threshold: 0, allow_backorder: false, ...variant.inventory } : undefined };
}

function create(deps: StoreDeps, actor: Actor, client: ClientRecord, product: ImportProduct, plan: Plan): void {
  const { items, result } = plan;
  if (product.status === 'archived') throw invalidAt(`${product.at}.status`, 'a new product cannot be archived');
  if (product.kind === 'plan' && (product.amount === undefined || product.interval === undefined)) throw invalidAt(`${product.at}.amount`, 'a plan needs an amount and an interval');
  if (product.kind === 'item' && product.variants.length === 0) throw invalidAt(`${product.at}.variants`, 'an item needs at least one variant');
  const offering = newOffering(deps, client, {
    kind: product.kind,
    ref: product.ref,
    title: product.title,
    description: product.description,
    status: product.status ?? 'draft',
    ...(product.kind === 'plan' ? { amount: product.amount, interval: product.interval } : {}),
  });
  const variants = product.variants.map((variant, index) => newVariant(deps, offering, variantInput(variant), index + 1, `${variant.at}.`));
  items.push({ Put: { TableName: deps.table, Item: offeringItem(offering), ConditionExpression: 'attribute_not_exists(pk)' } }, refGuard(deps, client.id, product.ref, offering.id));
  for (const variant of variants) items.push(...newVariantWrites(deps, actor, variant));
  if (offering.status === 'published') plan.published += 1;
  items.push(productEvent(deps, 'product.created', { offering, variants }, client));
  result.created.push({ ref: product.ref, offering_id: result.dry_run ? null : offering.id });
}

function update(
  deps: StoreDeps,
  actor: Actor,
  client: ClientRecord,
  product: ImportProduct,
  found: OfferingWithVariants,
  plan: Plan,
): void {
  const { items, result } = plan;
  const before = found.offering;
  const listed = { ref: product.ref, offering_id: before.id };
  if (before.kind !== product.kind) throw invalidAt(`${product.at}.kind`, `${product.ref} is ${before.kind === 'item' ? 'an item' : 'a plan'}`);
  if (before.status === 'archived') {
    if (product.status === 'archived') return void result.unchanged.push(listed);
    throw invalidAt(`${product.at}.status`, `${product.ref} is archived: an archived product does not change`);
  }
  const now = deps.clock.now().toISOString();
  const status = product.status ?? before.status;
  const offering: OfferingRecord = {
    ...before,
    title: product.title,
    description: product.description ?? before.description,
    amount: product.kind === 'plan' ? (product.amount ?? before.amount) : null,
    interval: product.kind === 'plan' ? (product.interval ?? before.interval) : null,
    status,
  };
  const changedOffering = ['title', 'description', 'amount', 'interval', 'status'].some((field) => offering[field as keyof OfferingRecord] !== before[field as keyof OfferingRecord]);

  const writes: TransactItem[] = [];
  const variants = found.variants.map((known) => {
    if (status === 'archived') return isLive(known) ? { ...known, status: 'archived' as const, updated_at: now, version: known.version + 1 } : known;
    const row = product.variants.find((variant) => variant.sku === known.sku);
    if (!row) return known;
    if (!isLive(known)) throw invalidAt(`${row.at}.sku`, `${row.sku} is a retired variant of ${product.ref}`);
    return changedVariant(deps, actor, known, row, offering, writes, now);
  });
  let position = Math.max(0, ...found.variants.map((v) => v.position));
  const added = status === 'archived' ? [] : product.variants.filter((row) => !found.variants.some((known) => known.sku === row.sku));
  for (const row of added) {
    const record = newVariant(deps, offering, variantInput(row), (position += 1), `${row.at}.`);
    variants.push(record);
    writes.push(...newVariantWrites(deps, actor, record));
  }
  variants.forEach((variant, index) => {
    const old = found.variants[index];
    if (old && variant !== old) writes.push(versionedPut(deps, variantItem(variant), old.version));
  });
  if (!changedOffering && writes.length === 0) return void result.unchanged.push(listed);
  if (offering.kind === 'item' && status === 'published' && !variants.some(isLive)) throw invalidAt(`${product.at}.status`, 'an item is published with at least one live variant');

  const after: OfferingRecord = { ...offering, updated_at: now, version: before.version + 1 };
  items.push(versionedPut(deps, offeringItem(after), before.version), ...writes);
  plan.published += (status === 'published' ? 1 : 0) - (before.status === 'published' ? 1 : 0);
  items.push(productEvent(deps, status === 'archived' ? 'product.archived' : 'product.updated', { offering: after, variants }, client));
  (status === 'archived' ? result.archived : result.updated).push(listed);
}

/** A live variant after its row: the same record when nothing differs; an on_hand change logs an `adjustment`. */
function changedVariant(
  deps: StoreDeps,
  actor: Actor,
  known: VariantRecord,
  row: ImportVariant,
  offering: OfferingRecord,
  writes: TransactItem[],
  now: string,
): VariantRecord {
  const input = variantInput(row);
  const pricing = { pricing_mode: input.pricing_mode, amount: row.amount ?? null, cost_amount: row.cost_amount ?? known.cost_amount, markup: row.markup ?? known.markup };
  const next: VariantRecord = {
    ...known,
    ...pricing,
    amount: priceOf(pricing, offering.markup, `${row.at}.`),
    option_values: row.option_values ?? known.option_values,
    track_inventory: row.inventory?.track_inventory ?? known.track_inventory,
    on_hand: row.inventory?.on_hand ?? known.on_hand,
    low_stock_threshold: row.inventory?.low_stock_threshold ?? known.low_stock_threshold,
    allow_backorder: row.inventory?.allow_backorder ?? known.allow_backorder,
  };
  const fields: (keyof VariantRecord)[] = ['pricing_mode', 'amount', 'cost_amount', 'track_inventory', 'on_hand', 'low_stock_threshold', 'allow_backorder'];
  const differs =
    fields.some((field) => next[field] !== known[field]) || canonicalJson(next.option_values) !== canonicalJson(known.option_values) || canonicalJson(next.markup) !== canonicalJson(known.markup);
  if (!differs) return known;
  if (next.on_hand < next.reserved && !next.allow_backorder) throw invalidAt(`${row.at}.on_hand`, `fewer than the ${next.reserved} units reserved`);
  const after = { ...next, updated_at: now, version: known.version + 1 };
  if (after.on_hand !== known.on_hand) writes.push(movementItem(deps, actor, after, { kind: 'adjustment', quantity: after.on_hand - known.on_hand, reason: 'catalog import' }).item);
  return after;
}

/**
 * The import as a saga: planned before its (empty) ledger step, so a refusal is its answer,
 * remembered under the key; the commit only sends the planned writes, conditioned on the
 * versions read. A try that reads another state than the first try pinned is refused (conflict).
 */
export const CATALOG_IMPORT = defineOperation('catalog.import', async ({ runtime, tenantId, operationId, principal, request, pinned }) => {
  const input = request as ImportRequest;
  const client = await readClient(runtime, tenantId, input.client_id);
  const file = await readFile(input.format, input.content);
  const state = await readCatalogState(runtime, client.id, file.products);
  assertUnchanged(pinned, file.products, state);
  const { items, result } = planImport(runtime, principal, client, input, file, state);
  return {
    post: async () => undefined,
    commit: async () => {
      const record: CatalogImport = { id: operationId, ...result, created_at: runtime.clock.now().toISOString() };
      return {
        items: [
          ...items,
          { Put: { TableName: runtime.table, Item: { ...catalogKeys.import(record.id), entity: 'catalog_import', tenant_id: tenantId, ...record }, ConditionExpression: 'attribute_not_exists(pk)' } },
          outboxItem(runtime, { type: 'import.completed', tenantId, clientId: client.id, data: { import: record } }).item,
        ],
        status: 201,
        body: record,
      };
    },
  };
});

/**
 * What the first try pins: the versions of what the file touches, read before the key is written
 * (a retry of a key already there pins nothing new: the key keeps its first try's). An unreadable
 * file pins nothing; the operation refuses it.
 */
async function firstRead(deps: StoreDeps, clientId: string, request: ImportRequest): Promise<ImportPin> {
  let products: ImportProduct[];
  try {
    products = (await readFile(request.format, request.content)).products;
  } catch (error) {
    if (error instanceof AppError && error.status < 500) return {};
    throw error;
  }
  return pinOf(products, await readCatalogState(deps, clientId, products));
}

/**
 * Imports a file into the client's catalog once per Idempotency-Key; a dry run plans and answers
 * without writing anything (not even the key). Refuses: invalid_request (the file, with every error
 * found, or too many writes), idempotency_key_reuse, idempotency_in_flight (a concurrent change to
 * the same products committed first: retry), conflict (what the file touches changed after the
 * first try read it: an import answered idempotency_in_flight and retried or swept after a change
 * is refused, never applied over it).
 */
export async function importCatalog(
  runtime: WalletDeps,
  principal: Principal,
  client: ClientRecord,
  body: z.infer<typeof importRequest>,
  options: { idempotencyKey: string; requestId: string },
): Promise<Outcome> {
  const request: ImportRequest = { ...body, client_id: client.id };
  if (body.dry_run) {
    const file = await readFile(request.format, request.content);
    const { result } = planImport(runtime, principal, client, request, file, await readCatalogState(runtime, client.id, file.products));
    const record: CatalogImport = { id: runtime.ids(), ...result, created_at: runtime.clock.now().toISOString() };
    return { status: 200, body: JSON.stringify(record), replayed: false };
  }
  const pinned = await firstRead(runtime, client.id, request);
  return runOperation(runtime, { operation: CATALOG_IMPORT, tenantId: client.tenant_id, idempotencyKey: options.idempotencyKey, request, principal, requestId: options.requestId, pinned });
}
