import * as z from 'zod';

/** Building blocks every area's route schemas share. */

export const uuid = z.uuid();

/** An amount in integer minor units. Floats never get this far: the JSON scanner refuses them. */
export const amount = z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER);
export const positiveAmount = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

export const timestamp = z.iso.datetime({ offset: false });

/** String-to-string metadata with Stripe's bounds: 50 keys, keys up to 40, values up to 500 characters. */
export const metadata = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((value) => Object.keys(value).length <= 50, { message: 'at most 50 metadata keys' });

/** `limit` as a query string: clamped to 1..max rather than refused (spec part 4 item 19). */
export const pageLimit = (defaultLimit = 50, max = 100) =>
  z
    // `limit=` (empty) is the default, as if absent: Number('') would read it as 0, clamped to 1.
    .preprocess((value) => (value === '' ? undefined : value), z.coerce.number().int('must be an integer').optional())
    .transform((value) => Math.min(max, Math.max(1, value === undefined ? defaultLimit : value)));

export const cursor = z.string().min(1).max(512).optional();

export const page = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    /** Pass as `cursor` to read the next page; null on the last page. */
    next_cursor: z.string().nullable(),
  });

export const problem = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  code: z.string(),
  request_id: z.string(),
  errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  retryable: z.literal(true).optional(),
});
