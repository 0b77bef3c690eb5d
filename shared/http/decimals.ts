import * as z from '../kernel/zod';
import { scaledDecimal } from '../kernel/decimal';

/**
 * The one exception to "numbers in a body are integers": a field a route's body schema declares
 * decimal. Amounts stay integer minor units everywhere (the raw-text scan refuses any fraction
 * anywhere else); a decimal field is a rate, never money (a percent markup's `value`).
 *
 * A field is declared where its schema is built, with `decimalNumber`, so every route whose body
 * holds it accepts it and no route lists paths by hand. `decimalPathsOf` finds them by walking
 * the body schema once per route; an opaque part of a body (JSON validated later, as a catalog
 * import's file) names the decimal paths inside it with `withDecimalPaths`.
 */

export interface DecimalPath {
  /** Object keys, `[]` for any array element, `*` for any key of a record. */
  segments: readonly string[];
  /** Most digits after the point. */
  places: number;
}

const decimals = new WeakMap<z.core.$ZodType, DecimalPath[]>();

/** A number that may carry up to `places` decimal places (no exponent) in a request body. */
export function decimalNumber(options: { min: number; max: number; places: number; description?: string }): z.ZodMiniNumber {
  // Not `multipleOf(0.01)`: validators judge it in binary floating point (33.33 / 0.01 is not a
  // whole number there), so the document would refuse answers the API gives. The body scan holds
  // the text to its places; this holds a parsed value to them.
  const schema = z
    .number()
    .check(
      z.minimum(options.min),
      z.maximum(options.max),
      z.refine((value) => scaledDecimal(value, options.places) !== undefined, `at most ${options.places} decimal places`),
      z.describe(options.description ?? `A decimal number with at most ${options.places} decimal places.`),
    );
  decimals.set(schema, [{ segments: [], places: options.places }]);
  return schema;
}

/** Declares decimal fields inside a schema the walk cannot see into (`a[].b`, relative to it). */
export function withDecimalPaths<T extends z.core.$ZodType>(schema: T, paths: readonly { path: string; places: number }[]): T {
  decimals.set(schema, paths.map(({ path, places }) => ({ segments: segmentsOf(path), places })));
  return schema;
}

/** `variants[].markup.value` to `['variants', '[]', 'markup', 'value']`. */
export function segmentsOf(path: string): string[] {
  return path === '' ? [] : path.split('.').flatMap((part) => {
    const match = /^([^[\]]*)((?:\[\])*)$/.exec(part);
    if (!match) throw new Error(`not a decimal path: ${path}`);
    const [, key, arrays] = match;
    return [...(key ? [key] : []), ...Array.from({ length: arrays!.length / 2 }, () => '[]')];
  });
}

/** Every decimal field of a body schema, as paths from the body's root. */
export function decimalPathsOf(schema: z.core.$ZodType | undefined): DecimalPath[] {
  const found: DecimalPath[] = [];
  const walking = new Set<z.core.$ZodType>();
  const walk = (node: z.core.$ZodType, at: string[]): void => {
    const declared = decimals.get(node);
    if (declared) for (const path of declared) found.push({ segments: [...at, ...path.segments], places: path.places });
    if (walking.has(node)) return;
    walking.add(node);
    const def = node._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
    switch (def.type) {
      case 'object':
        for (const [key, child] of Object.entries(def.shape as Record<string, z.core.$ZodType>)) walk(child, [...at, key]);
        break;
      case 'array':
        walk(def.element as z.core.$ZodType, [...at, '[]']);
        break;
      case 'record':
        walk(def.valueType as z.core.$ZodType, [...at, '*']);
        break;
      case 'union':
        for (const option of def.options as z.core.$ZodType[]) walk(option, at);
        break;
      case 'intersection':
        walk(def.left as z.core.$ZodType, at);
        walk(def.right as z.core.$ZodType, at);
        break;
      case 'pipe':
        walk(def.in as z.core.$ZodType, at);
        break;
      case 'lazy':
        walk((def.getter as () => z.core.$ZodType)(), at);
        break;
      case 'optional':
      case 'nullable':
      case 'default':
      case 'prefault':
      case 'nonoptional':
      case 'readonly':
      case 'catch':
        walk(def.innerType as z.core.$ZodType, at);
        break;
      default:
        break;
    }
    walking.delete(node);
  };
  if (schema) walk(schema, []);
  return found;
}

/** The decimal path `segments` (an actual position in a body) falls under, if any. */
export function decimalPathAt(paths: readonly DecimalPath[], segments: readonly string[]): DecimalPath | undefined {
  return paths.find(
    (path) => path.segments.length === segments.length && path.segments.every((segment, i) => segment === segments[i] || (segment === '*' && segments[i] !== '[]')),
  );
}
