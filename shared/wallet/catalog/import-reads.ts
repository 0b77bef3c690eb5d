import { getItems, type Item } from '../../aws/store';
import type { StoreDeps } from '../deps';
import type { ImportProduct } from './import-files';
import { catalogKeys } from './keys';
import { readOffering, type OfferingWithVariants } from './records';

/**
 * What a bulk import reads of the catalog before it plans: the offerings its refs name and the
 * guards of the SKUs it adds.
 */

/** The catalog as an import's plan reads it. */
export interface CatalogState {
  /** By product, in file order: the offering its ref names (with every variant), or none. */
  existing: (OfferingWithVariants | undefined)[];
  /** By SKU a row adds to its product (not one of that product's variants): the guard holding it, if any. */
  skuHolders: Map<string, Item | undefined>;
}

/**
 * Reads what the file touches: its refs' guards, their offerings (one query each) and the guards of
 * the SKUs it adds. A file may repeat a ref or a SKU (it is refused for that, naming the repeat):
 * each key is asked once, as BatchGetItem takes only distinct keys.
 */
export async function readCatalogState(deps: StoreDeps, clientId: string, products: ImportProduct[]): Promise<CatalogState> {
  const refs = distinct(products.map((product) => product.ref));
  const holders = refs.length === 0 ? [] : await getItems(deps, refs.map((ref) => catalogKeys.ref(clientId, ref)));
  const offerings = await Promise.all(holders.map((holder) => (holder ? readOffering(deps, String(holder.offering_id)) : Promise.resolve(undefined))));
  const byRef = new Map(refs.map((ref, index) => [ref, offerings[index]]));
  const existing = products.map((product) => byRef.get(product.ref));
  const added = distinct(products.flatMap((product, index) => product.variants.filter((row) => !variantOf(existing[index], row.sku)).map((row) => row.sku)));
  const guards = added.length === 0 ? [] : await getItems(deps, added.map((sku) => catalogKeys.sku(clientId, sku)));
  return { existing, skuHolders: new Map(added.map((sku, index) => [sku, guards[index]])) };
}

const distinct = (values: string[]): string[] => [...new Set(values)];
const variantOf = (found: OfferingWithVariants | undefined, sku: string) => found?.variants.find((known) => known.sku === sku);
