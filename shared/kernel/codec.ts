/**
 * Decoding a stored item into its typed record: one codec per entity, built from field readers, at
 * every read of that entity (issue 34). A stored item is written by this code, so a field that does
 * not read as its type is a broken invariant, not bad input: the decoder throws `StoredItemInvalid`
 * naming the entity and the field (the handler answers it as `internal_error`, saying nothing of
 * it), where a cast would have carried `"undefined"` or `NaN` on into a response or a posting.
 *
 * A typed decoder, not zod: building a codec is a handful of object literals and closures, so a
 * module that declares several costs nothing measurable at a cold start (issue 30), and a decode is
 * one call per field. The record type is declared beside the entity; `codec<Record>(…)` makes the
 * compiler hold the readers to it, one reader for every field.
 *
 * Only the declared fields come out: the item's keys (`pk`, `sk`, index keys, `entity`) stay
 * behind, and an optional field that is absent is absent from the record, not `undefined`.
 */

/** A stored item whose field does not read as its type. Not an `AppError`: it answers 500. */
export class StoredItemInvalid extends Error {
  readonly entity: string;
  readonly field: string;

  constructor(entity: string, field: string, expected: string, got: unknown) {
    // The type of what was found, never the value: a stored item may hold a hash or personal data.
    super(`Stored ${entity} has a malformed ${field}: expected ${expected}, found ${describe(got)}.`);
    this.name = 'StoredItemInvalid';
    this.entity = entity;
    this.field = field;
  }
}

const describe = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : value === undefined ? 'nothing' : typeof value);

/** Reads one field's value, or throws `StoredItemInvalid` naming `entity` and `field` (a path). */
export type Reader<T> = (value: unknown, entity: string, field: string) => T;

export type Decoder<T> = (item: Record<string, unknown>) => T;

/** One reader for every field of `T`, optional fields included (their reader answers `undefined`). */
export type Shape<T> = { [K in keyof T]-?: Reader<Pick<T, K> extends Required<Pick<T, K>> ? T[K] : T[K] | undefined> };

/** A reader that accepts what `accepts` says, as it is. */
const checked =
  <T>(expected: string, accepts: (value: unknown) => boolean): Reader<T> =>
  (value, entity, field) => {
    if (!accepts(value)) throw new StoredItemInvalid(entity, field, expected, value);
    return value as T;
  };

export const str: Reader<string> = checked('a string', (value) => typeof value === 'string');

/** A whole number: money in minor units, counts, versions. A fraction is refused, not rounded. */
export const int: Reader<number> = checked('an integer', (value) => Number.isSafeInteger(value));

/** Any finite number (a rate, a duration measured in fractions). */
export const num: Reader<number> = checked('a finite number', (value) => typeof value === 'number' && Number.isFinite(value));

export const bool: Reader<boolean> = checked('a boolean', (value) => typeof value === 'boolean');

/** Any value at all, as stored: an audit record's before/after copy, whose shape is the change's. */
export const anything: Reader<unknown> = (value) => value;

/** One of the listed strings (a status, a kind). */
export function oneOf<const V extends readonly string[]>(...values: V): Reader<V[number]> {
  const allowed = new Set<unknown>(values);
  return checked(`one of ${values.join(', ')}`, (value) => allowed.has(value));
}

/** Absent (or null) reads as `undefined`, and the record leaves the field out. */
export const opt =
  <T>(read: Reader<T>): Reader<T | undefined> =>
  (value, entity, field) =>
    value === undefined || value === null ? undefined : read(value, entity, field);

/** Absent (or null) reads as `null`. */
export const nullable =
  <T>(read: Reader<T>): Reader<T | null> =>
  (value, entity, field) =>
    value === undefined || value === null ? null : read(value, entity, field);

/** Absent (or null) reads as `fallback`: a field items written before it existed do not have. */
export const orElse =
  <T>(read: Reader<T>, fallback: () => T): Reader<T> =>
  (value, entity, field) =>
    value === undefined || value === null ? fallback() : read(value, entity, field);

export const list =
  <T>(read: Reader<T>): Reader<T[]> =>
  (value, entity, field) => {
    if (!Array.isArray(value)) throw new StoredItemInvalid(entity, field, 'a list', value);
    return value.map((element, index) => read(element, entity, `${field}[${index}]`));
  };

export const strList: Reader<string[]> = list(str);

/** A map of string keys to values of one type (metadata). */
export const mapOf =
  <T>(read: Reader<T>): Reader<Record<string, T>> =>
  (value, entity, field) => {
    if (!isPlainObject(value)) throw new StoredItemInvalid(entity, field, 'a map', value);
    const out: Record<string, T> = {};
    for (const [key, element] of Object.entries(value)) out[key] = read(element, entity, `${field}.${key}`);
    return out;
  };

export const strMap: Reader<Record<string, string>> = mapOf(str);

/**
 * A map this code wrote whole from a value another schema already checked (an event envelope, a
 * fee plan, a stored answer): checked to be a map, and typed by the declaration, not field by field.
 */
export const stored = <T extends object>(): Reader<T> => checked<T>('a map', isPlainObject);

/** A nested map with a shape of its own. */
export function obj<T>(shape: Shape<NoInfer<T>>): Reader<T> {
  const fields = Object.entries(shape) as [string, Reader<unknown>][];
  return (value, entity, field) => {
    if (!isPlainObject(value)) throw new StoredItemInvalid(entity, field, 'a map', value);
    return readFields(fields, value, entity, `${field}.`) as T;
  };
}

/** The decoder of one entity: its name (for the error) and a reader for each field of its record. */
export function codec<T>(entity: string, shape: Shape<NoInfer<T>>): Decoder<T> {
  const fields = Object.entries(shape) as [string, Reader<unknown>][];
  return (item) => readFields(fields, item, entity, '') as T;
}

function readFields(fields: readonly [string, Reader<unknown>][], item: Record<string, unknown>, entity: string, prefix: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, read] of fields) {
    const value = read(item[name], entity, prefix + name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
