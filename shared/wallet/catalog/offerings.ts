import type { TransactItem } from '../../aws/dynamodb';
import { queryPage, type Page } from '../../aws/store';
import type { Principal } from '../../http/principal';
import { str } from '../../kernel/codec';
import { AppError } from '../../kernel/errors';
import type { StoreDeps } from '../deps';
import type { ClientRecord } from './clients';
import { catalogKeys } from './keys';
import {
  clientOffering,
  invalidField,
  isLive,
  offeringItem,
  offeringView,
  priceOf,
  productEvent,
  publishedCountItem,
  readOffering,
  refGuard,
  releaseGuard,
  variantItem,
  type Offering,
  type OfferingRecord,
  type OfferingWithVariants,
  type VariantRecord,
} from './records';
import type { OfferingCreate, OfferingPatch, offeringListQuery } from './schemas';
import type * as z from '../../kernel/zod';
import { commitVersioned, StaleRead, versionedPut, withFreshReads } from '../../aws/fresh-reads';
import { newVariant, newVariantWrites, skuTaken } from './variants';

/**
 * Offerings: a client's products (spec part 2). `kind` item (priced per variant) or plan (an amount
 * per interval, subscribed to). Status moves draft → published → archived, and back from
 * published to draft; archived is final and retires every variant. Published offerings are the
 * ones Explore shows, and the client counts them. Each change is a product.* event in the same
 * transaction (docs/catalog.md).
 */

/** A new offering's record from the fields a request (or an import row) gives. */
export function newOffering(
  deps: StoreDeps,
  client: Pick<ClientRecord, 'id' | 'tenant_id'>,
  input: Pick<OfferingCreate, 'kind' | 'title' | 'status'> & Partial<Omit<OfferingCreate, 'kind' | 'title' | 'status' | 'variants'>>,
): OfferingRecord {
  const now = deps.clock.now().toISOString();
  return {
    id: deps.ids(),
    tenant_id: client.tenant_id,
    client_id: client.id,
    kind: input.kind,
    ref: input.ref ?? null,
    title: input.title,
    description: input.description ?? '',
    image_url: input.image_url ?? null,
    amount: input.amount ?? null,
    interval: input.interval ?? null,
    metadata: input.metadata ?? {},
    commission_bps: input.commission_bps ?? null,
    category_id: input.category_id ?? null,
    options: input.options ?? [],
    markup: input.markup ?? null,
    status: input.status,
    created_at: now,
    updated_at: now,
    version: 1,
  };
}

/** Kind-specific fields: a plan has amount and interval, an item neither. */
function checkKind(kind: 'item' | 'plan', fields: { amount?: number | null; interval?: string | null }): void {
  if (kind === 'plan') {
    if (fields.amount === undefined || fields.amount === null) throw invalidField('amount', 'a plan needs an amount');
    if (!fields.interval) throw invalidField('interval', 'a plan needs an interval');
    return;
  }
  if (fields.amount !== undefined && fields.amount !== null) throw invalidField('amount', 'an item is priced per variant');
  if (fields.interval !== undefined && fields.interval !== null) throw invalidField('interval', 'only a plan has an interval');
}

const refTaken = (ref: string) => new AppError('conflict', `ref ${ref} is already used in this catalog.`, { errors: [{ field: 'ref', message: 'taken' }] });

/**
 * Creates an offering, `draft` unless said, with its first variants.
 * Refuses: invalid_request (kind fields, options, pricing, publishing an item without variants,
 * a SKU twice), conflict (ref or a SKU taken).
 */
export async function createOffering(deps: StoreDeps, actor: Principal, client: ClientRecord, input: OfferingCreate): Promise<Offering> {
  checkKind(input.kind, input);
  const offering = newOffering(deps, client, input);
  const variants = (input.variants ?? []).map((variant, index) => newVariant(deps, offering, variant, index + 1, `variants[${index}].`));
  const seen = new Set<string>();
  variants.forEach((variant, index) => {
    if (seen.has(variant.sku)) throw invalidField(`variants[${index}].sku`, 'given twice');
    seen.add(variant.sku);
  });
  if (offering.kind === 'item' && offering.status === 'published' && variants.length === 0) throw invalidField('status', 'an item is published with at least one variant');
  const state: OfferingWithVariants = { offering, variants };
  const items: TransactItem[] = [{ Put: { TableName: deps.table, Item: offeringItem(offering), ConditionExpression: 'attribute_not_exists(pk)' } }];
  if (offering.ref) items.push(refGuard(deps, client.id, offering.ref, offering.id));
  const skuIndexes = new Map<number, string>();
  for (const variant of variants) {
    const writes = newVariantWrites(deps, actor, variant);
    skuIndexes.set(items.length + 1, variant.sku);
    items.push(...writes);
  }
  if (offering.status === 'published') items.push(publishedCountItem(deps, client.id, 1));
  items.push(productEvent(deps, 'product.created', state, client));
  await commitVersioned(deps, items, [], (failed) => {
    const sku = failed.map((index) => skuIndexes.get(index)).find((found) => found !== undefined);
    if (sku) throw skuTaken(sku);
    throw refTaken(offering.ref ?? '');
  });
  return offeringView(state, client);
}

/** Refuses: offering_not_found. */
export async function getOffering(deps: StoreDeps, client: ClientRecord, offeringId: string): Promise<Offering> {
  return offeringView(await clientOffering(deps, client.id, offeringId), client);
}

/** The client's offerings in any status (or one), newest first, each with its live variants. */
export async function listOfferings(deps: StoreDeps, client: ClientRecord, query: z.infer<typeof offeringListQuery>): Promise<Page<Offering>> {
  const page = await queryPage(deps, {
    index: 'gsi1',
    partition: catalogKeys.clientOfferings(client.id),
    cursor: query.cursor, created: query,
    limit: query.limit,
    ...(query.status ? { filter: { expression: '#status = :status', names: { '#status': 'status' }, values: { ':status': query.status } }, scanBudget: 500 } : {}),
  });
  const found = await Promise.all(page.items.map((item) => readOffering(deps, str(item.id, 'offering', 'id'))));
  return { data: found.filter((f) => f !== undefined).map((f) => offeringView(f, client)), next_cursor: page.next_cursor };
}

const TRANSITIONS: Record<OfferingRecord['status'], readonly OfferingRecord['status'][]> = {
  draft: ['draft', 'published', 'archived'],
  published: ['published', 'draft', 'archived'],
  archived: [],
};

/**
 * Changes an offering's details, price or status. Archiving retires its variants and is final.
 * A change of the offering's markup reprices its variants that follow it.
 * Refuses: offering_not_found, invalid_transition (archived, or a move its status does not allow),
 * invalid_request (kind fields, publishing an item without a live variant), conflict (ref taken).
 */
export async function patchOffering(deps: StoreDeps, client: ClientRecord, offeringId: string, patch: OfferingPatch): Promise<Offering> {
  return withFreshReads(async () => {
    const found = await clientOffering(deps, client.id, offeringId);
    const before = found.offering;
    const status = patch.status ?? before.status;
    if (!TRANSITIONS[before.status].includes(status)) throw new AppError('invalid_transition', `An ${before.status} offering cannot become ${status}.`);
    const now = deps.clock.now().toISOString();
    const after: OfferingRecord = {
      ...before,
      ref: patch.ref ?? before.ref,
      title: patch.title ?? before.title,
      description: patch.description ?? before.description,
      image_url: patch.image_url ?? before.image_url,
      amount: patch.amount ?? before.amount,
      interval: patch.interval ?? before.interval,
      metadata: patch.metadata ?? before.metadata,
      commission_bps: patch.commission_bps === undefined ? before.commission_bps : patch.commission_bps,
      category_id: patch.category_id === undefined ? before.category_id : patch.category_id,
      options: patch.options ?? before.options,
      markup: patch.markup === undefined ? before.markup : patch.markup,
      status,
      updated_at: now,
      version: before.version + 1,
    };
    checkKind(after.kind, { amount: after.amount, interval: after.interval });
    const variants = found.variants.map((variant) => nextVariant(variant, after, now));
    if (after.kind === 'item' && status === 'published' && !variants.some(isLive)) throw invalidField('status', 'an item is published with at least one live variant');
    const state: OfferingWithVariants = { offering: after, variants };

    const items: TransactItem[] = [versionedPut(deps, offeringItem(after), before.version)];
    const versioned = [0];
    variants.forEach((variant, index) => {
      if (variant === found.variants[index]) return;
      versioned.push(items.length);
      items.push(versionedPut(deps, variantItem(variant), found.variants[index]!.version));
    });
    let refIndex = -1;
    if (after.ref !== before.ref && after.ref) {
      refIndex = items.length;
      items.push(refGuard(deps, client.id, after.ref, after.id));
      if (before.ref) items.push(releaseGuard(deps, catalogKeys.ref(client.id, before.ref)));
    }
    const countDelta = (status === 'published' ? 1 : 0) - (before.status === 'published' ? 1 : 0);
    if (countDelta !== 0) items.push(publishedCountItem(deps, client.id, countDelta));
    items.push(productEvent(deps, status === 'archived' ? 'product.archived' : 'product.updated', state, client));
    await commitVersioned(deps, items, versioned, (failed) => {
      if (failed.includes(refIndex)) throw refTaken(after.ref ?? '');
      throw new StaleRead();
    });
    return offeringView(state, client);
  });
}

/** A variant after its offering changed: retired with an archived offering, repriced with a new offering markup. */
function nextVariant(variant: VariantRecord, offering: OfferingRecord, now: string): VariantRecord {
  if (!isLive(variant)) return variant;
  if (offering.status === 'archived') return { ...variant, status: 'archived', updated_at: now, version: variant.version + 1 };
  if (variant.pricing_mode !== 'markup' || variant.markup) return variant;
  const amount = priceOf(variant, offering.markup, `variants[${variant.sku}].`);
  return amount === variant.amount ? variant : { ...variant, amount, updated_at: now, version: variant.version + 1 };
}
