import * as z from '../kernel/zod';

/**
 * Building blocks every area's route schemas share. A rule zod checks with a refinement is
 * invisible to the OpenAPI documents, so the helpers below that refine also say the rule in JSON
 * Schema (`z.meta` keywords the document generator keeps): one definition both enforces and
 * documents it. What no schema can say goes in the route's `description`.
 */

export const uuid = z.uuid();

/** An amount in integer minor units. Floats never get this far: the JSON scanner refuses them. */
export const amount = z.int().check(z.minimum(Number.MIN_SAFE_INTEGER), z.maximum(Number.MAX_SAFE_INTEGER));
export const positiveAmount = z.int().check(z.minimum(1), z.maximum(Number.MAX_SAFE_INTEGER));

export const timestamp = z.iso.datetime({ offset: false });

export const MAX_METADATA_KEYS = 50;

/**
 * String-to-string metadata with Stripe's bounds: 50 keys, keys up to 40, values up to 500
 * characters. OpenAPI 3.0 has no `propertyNames`, so the key bound is said in the description.
 */
export const metadata = z.record(z.string().check(z.minLength(1), z.maxLength(40)), z.string().check(z.maxLength(500))).check(
  z.refine((value) => Object.keys(value).length <= MAX_METADATA_KEYS, { message: `at most ${MAX_METADATA_KEYS} metadata keys` }),
  z.meta({
    maxProperties: MAX_METADATA_KEYS,
    description: `String keys of 1 to 40 characters to string values of at most 500 characters; at most ${MAX_METADATA_KEYS} keys.`,
  }),
);

/** An ISO 4217 currency code as the documents describe it; a route that takes one says which it accepts. */
export const CURRENCY_PATTERN = '^[A-Z]{3}$';

type Fields<T extends z.ZodMiniObject> = readonly (keyof z.output<T> & string)[];

const named = (body: object, fields: readonly string[]) => fields.filter((field) => (body as Record<string, unknown>)[field] !== undefined);

/** A partial update that must name at least one field: `minProperties: 1`. */
export const someField = <T extends z.ZodMiniObject>(object: T, message: string): T =>
  object.check(
    z.refine((body) => Object.keys(body).length > 0, { message }),
    z.meta({ minProperties: 1 }),
  );

/** Exactly one of `fields` (the others absent): a `oneOf` of their `required`. */
export const exactlyOneOf = <T extends z.ZodMiniObject>(object: T, fields: Fields<T>, message: string): T =>
  object.check(
    z.refine((body) => named(body, fields).length === 1, { message }),
    z.meta({ oneOf: fields.map((field) => ({ required: [field] })) }),
  );

/** At least one of `fields`: an `anyOf` of their `required`; `path` names the field a refusal blames. */
export const oneOrMoreOf = <T extends z.ZodMiniObject>(object: T, fields: Fields<T>, message: string, path?: string[]): T =>
  object.check(
    z.refine((body) => named(body, fields).length > 0, { message, ...(path ? { path } : {}) }),
    z.meta({ anyOf: fields.map((field) => ({ required: [field] })) }),
  );

/** `limit` as a query string: clamped to 1..max rather than refused (spec part 4 item 19). */
export const pageLimit = (defaultLimit = 50, max = 100) =>
  z
    .pipe(
      // `limit=` (empty) is the default, as if absent: Number('') would read it as 0, clamped to 1.
      z.pipe(
        z.transform((value: unknown) => (value === '' ? undefined : value)),
        z.optional(z.coerce.number().check(z.int('must be an integer'))),
      ),
      z.transform((value) => Math.min(max, Math.max(1, value === undefined ? defaultLimit : value))),
    )
    // What a client may send, as the documents say it (the coercion's own bounds are ±2^53).
    .check(
      z.meta({
        type: 'integer',
        minimum: 1,
        maximum: max,
        inputDefault: defaultLimit,
        description: `How many items a page holds: an integer from 1 to ${max}, ${defaultLimit} when absent. A value outside is clamped to that range, not refused (0 reads 1 item, 500 reads ${max}).`,
      }),
    );

/** Opaque: base64url of a DynamoDB key position (an attempt listed by event through gsi2 takes about 650 characters). */
export const cursor = z.optional(z.string().check(z.minLength(1), z.maxLength(1024)));

/**
 * `created_after` and `created_before` of a listing whose objects have `created_at`: exclusive
 * bounds (Stripe's `created[gt]`/`created[lt]`), ISO 8601 date-times with `Z` or an offset.
 */
export const createdRange = {
  created_after: z.optional(z.iso.datetime({ offset: true })).check(z.describe('Only objects created strictly after this instant (ISO 8601 date-time, `Z` or an offset).')),
  created_before: z.optional(z.iso.datetime({ offset: true })).check(z.describe('Only objects created strictly before this instant (ISO 8601 date-time, `Z` or an offset).')),
};

const INTEGER_JSON = '#/definitions/IntegerJson';

/**
 * A body the route takes as it comes (a processor's or a rail's webhook, read after its signature
 * is checked over the raw bytes): any JSON, but like every body its numbers are integers, since the
 * raw-text scan refuses any other (./json.ts). zod accepts anything here; the documents say the
 * rule with a recursive schema.
 */
export const integerJson = z.unknown().check(z.meta({
  id: 'IntegerJson',
  description: 'Any JSON value whose numbers, at any depth, are integers (no fraction, no exponent).',
  nullable: true,
  anyOf: [
    { type: 'string' },
    { type: 'integer' },
    { type: 'boolean' },
    { type: 'array', items: { $ref: INTEGER_JSON } },
    { type: 'object', additionalProperties: { $ref: INTEGER_JSON } },
  ],
}));

export const page = <T extends z.core.$ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    has_more: hasMore,
    /** Pass as `cursor` to read the next page; null on the last page. */
    next_cursor: z.nullable(z.string()),
  });

/**
 * Beside every `next_cursor` (Stripe's name): whether there may be more after this page. The handler
 * factory answers it from `next_cursor` (./handler.ts `withHasMore`), so no listing can forget it.
 */
export const hasMore = z.boolean().check(z.describe('Whether there may be more after this page: true exactly when `next_cursor` is not null (a filtered page may hold fewer than `limit` and still have more).'));

/**
 * A tailing feed's page (the ledger's event feed, TigerBeetle's change stream read with Stripe's
 * names): `next_cursor` is where to resume and stays set at the end of the feed, so a reader polls
 * from it later; `has_more` therefore cannot follow from it. The function answers `has_more`
 * itself, and the handler keeps it (./handler.ts `withHasMore`).
 */
export const feedPage = <T extends z.core.$ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    has_more: z.boolean().check(
      z.describe(
        'Whether more events can be read now: true when this page was cut (by `limit`, or by how much one request may read) before the end of what is settled. False at the end of the feed: stop paging, keep `next_cursor`, and poll with it later for newer events.',
      ),
    ),
    next_cursor: z.nullable(z.string()).check(
      z.describe(
        'Where to resume: the id of the last event of this page, or the `cursor` sent when nothing newer is settled yet. Set at the end of the feed too (poll with it for newer events); null only when the feed is empty and no cursor was sent.',
      ),
    ),
  });

export const problem = z.object({
  type: z.string(),
  title: z.string(),
  status: z.int(),
  detail: z.string(),
  code: z.string(),
  request_id: z.string(),
  errors: z.optional(z.array(z.object({ field: z.string(), message: z.string() }))),
  retryable: z.optional(z.literal(true)),
});
