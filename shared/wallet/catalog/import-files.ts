import * as z from '../../kernel/zod';
import { AppError, type FieldError } from '../../kernel/errors';
import { INTERVALS, OFFERING_KINDS, OFFERING_STATUSES, PRICING_MODES } from './fields';
import { IMPORT_MAX_BYTES, IMPORT_MAX_ROWS, markup } from './schemas';

/**
 * Reading a bulk import file (docs/catalog.md) into products, every row validated and every error
 * reported with where it is: `products[2].variants[0].sku` in JSON, `rows[5].amount` in CSV (rows
 * counted as a spreadsheet does, the header being row 1). Nothing here reads the catalog.
 */

export interface ImportVariant {
  sku: string;
  pricing_mode?: 'manual' | 'markup';
  amount?: number;
  cost_amount?: number;
  markup?: z.infer<typeof markup>;
  option_values?: string[];
  inventory?: { track_inventory?: boolean; on_hand?: number; low_stock_threshold?: number; allow_backorder?: boolean };
  /** Where the variant is in the file, for errors. */
  at: string;
}

export interface ImportProduct {
  ref: string;
  kind: 'item' | 'plan';
  title: string;
  description?: string;
  status?: 'draft' | 'published' | 'archived';
  amount?: number;
  interval?: 'weekly' | 'monthly' | 'yearly';
  variants: ImportVariant[];
  at: string;
  /** A row of it did not read: it is reported, and not planned. */
  invalid?: boolean;
}

const CSV_COLUMNS = ['ref', 'kind', 'title', 'description', 'status', 'sku', 'option_values', 'amount', 'cost_amount', 'on_hand', 'low_stock_threshold'] as const;
/** Columns a CSV file may add after the named ones. */
const CSV_EXTRA_COLUMNS = ['interval'] as const;

const ref = z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._\-/]{0,99}$/, 'letters, digits and . _ - / (at most 100)'));
const sku = z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._\-/]{0,63}$/, 'letters, digits and . _ - / (at most 64)'));
const count = z.int().check(z.minimum(0), z.maximum(1_000_000_000));
const money = z.int().check(z.minimum(0), z.maximum(2 ** 45));

const variantShape = z.strictObject({
  sku,
  pricing_mode: z.optional(z.enum(PRICING_MODES)),
  amount: z.optional(money.check(z.minimum(1))),
  cost_amount: z.optional(money),
  markup: z.optional(markup),
  option_values: z.optional(z.array(z.string().check(z.minLength(1), z.maxLength(100))).check(z.maxLength(10))),
  inventory: z.optional(z.partial(z.strictObject({ track_inventory: z.boolean(), on_hand: count, low_stock_threshold: count, allow_backorder: z.boolean() }))),
});

const productShape = z.strictObject({
  ref,
  kind: z.enum(OFFERING_KINDS),
  title: z.string().check(z.trim(), z.minLength(1), z.maxLength(200)),
  description: z.optional(z.string().check(z.maxLength(5000))),
  status: z.optional(z.enum(OFFERING_STATUSES)),
  amount: z.optional(money.check(z.minimum(1))),
  interval: z.optional(z.enum(INTERVALS)),
  variants: z._default(z.array(z.unknown()).check(z.maxLength(50)), []),
});

const fileShape = z.strictObject({ products: z.array(z.unknown()).check(z.minLength(1)) });

class Collected {
  readonly errors: FieldError[] = [];
  add(field: string, message: string) {
    if (this.errors.length < 100) this.errors.push({ field, message });
  }
  addIssues(prefix: string, error: z.core.$ZodError) {
    for (const issue of error.issues) this.add([prefix, ...issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))].join('').replace(/^\./, ''), issue.message);
  }
  throwIfAny(): void {
    if (this.errors.length === 0) return;
    throw new AppError('invalid_request', `The file has ${this.errors.length === 100 ? 'at least 100' : this.errors.length} error(s); nothing was imported.`, { errors: this.errors });
  }
}

/**
 * The products of a file that read well, and the errors of those that did not (the caller adds
 * what the catalog says and refuses them all at once). Refuses: invalid_request when the file as a
 * whole is unreadable (too large, too many rows, not the format, a wrong CSV header).
 */
export function readImportFile(format: 'json' | 'csv', content: unknown): { products: ImportProduct[]; errors: FieldError[] } {
  const size = Buffer.byteLength(typeof content === 'string' ? content : JSON.stringify(content), 'utf8');
  if (size > IMPORT_MAX_BYTES) throw new AppError('invalid_request', `An import file holds at most ${IMPORT_MAX_BYTES} bytes.`, { errors: [{ field: 'content', message: 'too large' }] });
  const collected = new Collected();
  const products = format === 'json' ? fromJson(content, collected) : fromCsv(content, collected);
  const rows = products.reduce((sum, product) => sum + Math.max(1, product.variants.length), 0);
  if (rows > IMPORT_MAX_ROWS) throw new AppError('invalid_request', `An import holds at most ${IMPORT_MAX_ROWS} rows (variants); this one has ${rows}.`, { errors: [{ field: 'content', message: 'too many rows' }] });
  const refs = new Map<string, string>();
  const skus = new Map<string, string>();
  for (const product of products) {
    if (refs.has(product.ref)) collected.add(`${product.at}.ref`, `${product.ref} is also at ${refs.get(product.ref)}`);
    refs.set(product.ref, product.at);
    for (const variant of product.variants) {
      if (skus.has(variant.sku)) collected.add(`${variant.at}.sku`, `${variant.sku} is also at ${skus.get(variant.sku)}`);
      skus.set(variant.sku, variant.at);
    }
  }
  return { products, errors: collected.errors };
}

function fromJson(content: unknown, collected: Collected): ImportProduct[] {
  const file = z.safeParse(fileShape, content);
  if (!file.success) {
    collected.addIssues('content', file.error);
    collected.throwIfAny();
  }
  const products: ImportProduct[] = [];
  file.data!.products.forEach((raw, index) => {
    const at = `products[${index}]`;
    const parsed = z.safeParse(productShape, raw);
    if (!parsed.success) return collected.addIssues(at, parsed.error);
    const variants: ImportVariant[] = [];
    let invalid = false;
    parsed.data.variants.forEach((rawVariant, variantIndex) => {
      const variantAt = `${at}.variants[${variantIndex}]`;
      const variant = z.safeParse(variantShape, rawVariant);
      if (variant.success) return variants.push({ ...variant.data, at: variantAt });
      invalid = true;
      collected.addIssues(variantAt, variant.error);
    });
    if (!invalid) products.push({ ...parsed.data, variants, at });
  });
  return products;
}

function fromCsv(content: unknown, collected: Collected): ImportProduct[] {
  if (typeof content !== 'string') throw new AppError('invalid_request', 'A CSV import sends the file as a string.', { errors: [{ field: 'content', message: 'not a string' }] });
  const records = parseCsv(content);
  const header = records[0]?.map((cell) => cell.trim()) ?? [];
  const named = header.slice(0, CSV_COLUMNS.length);
  const extra = header.slice(CSV_COLUMNS.length);
  if (named.join(',') !== CSV_COLUMNS.join(',') || extra.some((column) => !(CSV_EXTRA_COLUMNS as readonly string[]).includes(column))) {
    throw new AppError('invalid_request', `The header must be ${CSV_COLUMNS.join(',')} (optionally followed by ${CSV_EXTRA_COLUMNS.join(', ')}).`, {
      errors: [{ field: 'rows[1]', message: 'unexpected header' }],
    });
  }
  const byRef = new Map<string, ImportProduct>();
  records.slice(1).forEach((cells, index) => {
    const at = `rows[${index + 2}]`;
    if (cells.length === 1 && cells[0]!.trim() === '') return;
    if (cells.length !== header.length) return collected.add(at, `has ${cells.length} cells, the header ${header.length}`);
    const cell = Object.fromEntries(header.map((name, i) => [name, cells[i]!.trim()])) as Record<string, string>;
    const integer = (name: string) => {
      if (cell[name] === '') return undefined;
      if (!/^-?\d{1,16}$/.test(cell[name]!)) {
        collected.add(`${at}.${name}`, 'not an integer');
        return undefined;
      }
      return Number(cell[name]);
    };
    const product = z.safeParse(z.omit(productShape, { variants: true }), {
      ref: cell.ref,
      kind: cell.kind,
      title: cell.title,
      ...(cell.description ? { description: cell.description } : {}),
      ...(cell.status ? { status: cell.status } : {}),
      ...(cell.kind === 'plan' && cell.amount ? { amount: integer('amount') } : {}),
      ...(cell.interval ? { interval: cell.interval } : {}),
    });
    if (!product.success) return collected.addIssues(at, product.error);
    let entry = byRef.get(product.data.ref);
    if (!entry) {
      entry = { ...product.data, variants: [], at };
      byRef.set(product.data.ref, entry);
    } else {
      for (const field of ['kind', 'title', 'description', 'status', 'amount', 'interval'] as const) {
        if (entry[field] !== product.data[field]) collected.add(`${at}.${field}`, `differs from the first row of ${product.data.ref} (${entry.at})`);
      }
    }
    if (product.data.kind === 'plan') {
      if (cell.sku) collected.add(`${at}.sku`, 'a plan has no variants');
      return;
    }
    const amount = integer('amount');
    const onHand = integer('on_hand');
    const threshold = integer('low_stock_threshold');
    const variant = z.safeParse(variantShape, {
      sku: cell.sku,
      ...(amount === undefined ? {} : { amount }),
      ...(integer('cost_amount') === undefined ? {} : { cost_amount: integer('cost_amount') }),
      ...(cell.option_values ? { option_values: cell.option_values.split('|').map((value) => value.trim()) } : {}),
      ...(onHand === undefined && threshold === undefined
        ? {}
        : { inventory: { ...(onHand === undefined ? {} : { on_hand: onHand }), ...(threshold === undefined ? {} : { low_stock_threshold: threshold }) } }),
    });
    const refuse = (add: () => void) => {
      entry.invalid = true;
      add();
    };
    if (!variant.success) return refuse(() => collected.addIssues(at, variant.error));
    if (variant.data.amount === undefined) return refuse(() => collected.add(`${at}.amount`, 'an item variant needs an amount'));
    entry.variants.push({ ...variant.data, at });
  });
  if (records.length < 2) collected.add('rows[2]', 'the file has no rows');
  return [...byRef.values()].filter((product) => !product.invalid);
}

/** RFC 4180: comma-separated, double quotes around a cell that holds commas, quotes or line breaks ("" is a quote). */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"' && cell === '') quoted = true;
    else if (char === ',') {
      cells.push(cell);
      cell = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i += 1;
      cells.push(cell);
      records.push(cells);
      cells = [];
      cell = '';
    } else cell += char;
  }
  if (cell !== '' || cells.length > 0) {
    cells.push(cell);
    records.push(cells);
  }
  return records;
}
