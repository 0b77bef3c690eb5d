import { getItems } from '../../aws/store';
import { AppError, type FieldError } from '../../kernel/errors';
import type { StoreDeps } from '../deps';
import type { ImportProduct } from './import-files';
import { catalogKeys } from './keys';
import { readOffering, toRefGuard, toSkuGuard, type OfferingWithVariants } from './records';

/**
 * What a bulk import reads of the catalog before it plans, and the part of it its first try pins
 * (DESIGN.md "Money moves"). An import answered idempotency_in_flight (its commit lost a race) is
 * resumed by the client's retry or by the sweeper, maybe a minute later: it completes exactly as
 * first asked, against the state it first read, or it is refused (409 `conflict`, naming what
 * changed). It never applies its file over a change made after it answered: a merchant's stock
 * change of 7 to 500 is not undone by an import that read 7. The import moves no money, so
 * refusing is allowed, and the refusal is remembered under the key like any answer.
 */

/** The catalog as an import's plan reads it. */
export interface CatalogState {
  /** By product, in file order: the offering its ref names (with every variant), or none. */
  existing: (OfferingWithVariants | undefined)[];
  /** By SKU a row adds to its product (not one of that product's variants): the guard holding it, if any. */
  skuHolders: Map<string, { offering_id: string; variant_id: string } | undefined>;
}

/**
 * Reads what the file touches: its refs' guards, their offerings (one query each) and the guards of
 * the SKUs it adds. A file may repeat a ref or a SKU (it is refused for that, naming the repeat):
 * each key is asked once, as BatchGetItem takes only distinct keys.
 */
export async function readCatalogState(deps: StoreDeps, clientId: string, products: ImportProduct[]): Promise<CatalogState> {
  const refs = distinct(products.map((product) => product.ref));
  const holders = refs.length === 0 ? [] : await getItems(deps, refs.map((ref) => catalogKeys.ref(clientId, ref)));
  const offerings = await Promise.all(holders.map((holder) => (holder ? readOffering(deps, toRefGuard(holder).offering_id) : Promise.resolve(undefined))));
  const byRef = new Map(refs.map((ref, index) => [ref, offerings[index]]));
  const existing = products.map((product) => byRef.get(product.ref));
  const added = distinct(products.flatMap((product, index) => product.variants.filter((row) => !variantOf(existing[index], row.sku)).map((row) => row.sku)));
  const guards = added.length === 0 ? [] : await getItems(deps, added.map((sku) => catalogKeys.sku(clientId, sku)));
  return { existing, skuHolders: new Map(added.map((sku, index) => [sku, guards[index] && toSkuGuard(guards[index])])) };
}

const distinct = (values: string[]): string[] => [...new Set(values)];
const variantOf = (found: OfferingWithVariants | undefined, sku: string) => found?.variants.find((known) => known.sku === sku);

/**
 * What the first try pins, by entry: each product's offering (none, or its id and version) and
 * each row's variant (its version) or the guard of the SKU it adds (free, or the variant holding
 * it): what the plan writes the file's values over. Every write of an offering or a variant moves
 * its version, and every change to an offering's variants but their stock counts moves the
 * offering's. The stock of a variant the file does not mention is not pinned: the import never
 * writes the file over it (an archive rewrites it whole as read again), and orders move it all day.
 * Small: at most two entries a row.
 */
export type ImportPin = Record<string, string>;

interface PinEntry {
  key: string;
  value: string;
  /** Where it is in the file, and what to call it, when it changed. */
  field: string;
  name: string;
}

function pinEntries(products: ImportProduct[], state: CatalogState): PinEntry[] {
  const entries: PinEntry[] = [];
  products.forEach((product, index) => {
    const found = state.existing[index];
    entries.push({ key: `product:${product.ref}`, value: found ? `${found.offering.id}@${found.offering.version}` : 'none', field: `${product.at}.ref`, name: product.ref });
    for (const row of product.variants) {
      const known = variantOf(found, row.sku);
      const holder = state.skuHolders.get(row.sku);
      const value = known ? `${known.id}@${known.version}` : holder ? `held by ${holder.variant_id}` : 'free';
      entries.push({ key: `sku:${row.sku}`, value, field: `${row.at}.sku`, name: row.sku });
    }
  });
  return entries;
}

/** The pin of what was read, stored with the import's Idempotency-Key. */
export const pinOf = (products: ImportProduct[], state: CatalogState): ImportPin => Object.fromEntries(pinEntries(products, state).map((entry) => [entry.key, entry.value]));

/**
 * Refuses: conflict, naming every entry of the file whose state differs from what the first try
 * pinned. A key started before imports pinned anything has no pin: it is refused too, since
 * nothing shows what it read.
 */
export function assertUnchanged(pinned: unknown, products: ImportProduct[], state: CatalogState): void {
  if (typeof pinned !== 'object' || pinned === null) {
    throw new AppError('conflict', 'This import was started before imports remembered the catalog they read; nothing was imported. Send the file again under a new Idempotency-Key.', {
      errors: [{ field: 'content', message: 'what the import first read is unknown' }],
    });
  }
  // The entries' keys come from the file alone (refs and SKUs), which is the first try's: only values can differ.
  const stored = pinned as ImportPin;
  const changed = pinEntries(products, state).filter((entry) => stored[entry.key] !== entry.value);
  if (changed.length === 0) return;
  const errors: FieldError[] = changed.map((entry) => ({ field: entry.field, message: `${entry.name} changed after this import first read it` }));
  const names = [...new Set(changed.map((entry) => entry.name))];
  const named = ` (${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''})`;
  throw new AppError(
    'conflict',
    `The catalog changed after this import first read it${named}; nothing was imported. Send the file again under a new Idempotency-Key to import it over the catalog as it is now.`,
    { errors: errors.slice(0, 100) },
  );
}
