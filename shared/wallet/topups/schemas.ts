import * as z from '../../kernel/zod';
import { cursor, integerJson, pageLimit, timestamp, uuid, createdRange } from '../../http/schemas';
import { SANDBOX_OUTCOMES } from './processors';
import { DEVICE_PLATFORMS } from './devices';
import { RESOLVE_ACTIONS, TOPUP_STATUSES } from './states';

/** Request and response shapes of the top-up routes (spec part 4 items 18 and 23, part 6 topup.*). */

/** The ledger's bound on one leg (docs/ledger.md): a top-up is at most one leg's worth. */
export const MAX_TOPUP_AMOUNT = 2 ** 45;
export const PUSH_TOKEN_MAX = 4096;


export const gatewayName = z.string().check(z.regex(/^[a-z][a-z0-9_]{0,39}$/, 'must be a gateway name, such as sandbox'));
const currencyCode = z.string().check(z.regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code, such as USD'));

export const topupCreate = z.strictObject({
  /** The user to credit; a user token may omit it (its own user). */
  user_id: z.optional(uuid),
  /** Integer minor units of `currency`. */
  amount: z.int().check(z.minimum(1), z.maximum(MAX_TOPUP_AMOUNT)),
  /** Must be the tenant's currency. */
  currency: currencyCode,
  /** Default `sandbox`. */
  gateway: z.optional(gatewayName),
  /** Sandbox gateway only, and never with a live API key: what the sandbox processor will confirm. */
  sandbox_outcome: z.optional(z.enum(SANDBOX_OUTCOMES)),
});
export type TopupCreate = z.infer<typeof topupCreate>;

/**
 * The top-up's fields; `topup` names them `Topup` in the documents. `topupCreated` extends these,
 * not `topup`: `z.meta` is a check, and `z.extend` keeps an object's checks, so it would name the
 * extension `Topup` too.
 */
const topupFields = z.object({
  id: uuid,
  user_id: uuid,
  /** What the user pays the processor, in minor units of `currency`. */
  amount: z.int(),
  currency: z.string(),
  /** The tenant's top-up fee on the credited amount, paid by the user (deducted). */
  fee: z.int(),
  /** What the wallet is (or will be) credited: the credited amount minus the fee. */
  net_amount: z.int(),
  gateway: z.string(),
  status: z.enum(TOPUP_STATUSES),
  /** The processor's id of the payment intent. */
  processor_ref: z.string(),
  /** What the processor confirmed; null until it did. */
  confirmed_amount: z.nullable(z.int()),
  confirmed_currency: z.nullable(z.string()),
  /** `declined` (failed) or `refunded_after_mismatch` (refunded); null otherwise. */
  failure_reason: z.nullable(z.string()),
  /** How an operator resolved an amount mismatch. */
  resolution: z.nullable(z.enum(RESOLVE_ACTIONS)),
  /** The ledger transaction that credited the wallet. */
  ledger_transaction_id: z.nullable(uuid),
  /** The processor's refund of a refunded mismatch (absent otherwise). */
  processor_refund_ref: z.optional(z.string()),
  created_at: timestamp,
  updated_at: timestamp,
});
export const topup = topupFields.check(z.meta({ id: 'Topup' }));
export type Topup = z.infer<typeof topup>;

/** The creation answer adds what the client needs to pay (exactly one is set, by the gateway's flow). */
export const topupCreated = z.extend(topupFields, { client_secret: z.nullable(z.string()), redirect_url: z.nullable(z.string()) });

export const topupListQuery = z.strictObject({ user_id: z.optional(uuid), ...createdRange, cursor, limit: pageLimit() });

export const topupResolve = z.strictObject({ action: z.enum(RESOLVE_ACTIONS) });

export const topupGateways = z.object({
  data: z.array(z.object({ name: z.string(), flow: z.enum(['client_secret', 'redirect']), currencies: z.array(z.string()) })),
});

export const deviceCreate = z.strictObject({
  /** The device's user; a user token or IdP token may omit it (its own user). */
  user_id: z.optional(uuid),
  platform: z.enum(DEVICE_PLATFORMS),
  /** APNs device token, FCM registration token, or a Web Push subscription (printable ASCII). */
  // Printable ASCII with no space at either end, so a blank token fails the schema as documented, not the service.
  push_token: z
    .string()
    .check(z.minLength(1), z.maxLength(PUSH_TOKEN_MAX), z.regex(/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/, 'must be printable ASCII, not blank, with no space at either end')),
});
export type DeviceCreate = z.infer<typeof deviceCreate>;

export const device = z.object({
  id: uuid,
  user_id: uuid,
  platform: z.enum(DEVICE_PLATFORMS),
  created_at: timestamp,
  updated_at: timestamp,
});

/**
 * A processor webhook's body is read only after its signature is verified over the raw bytes
 * (service.ts), so the route accepts any JSON here.
 */
export const processorWebhookBody = integerJson;

export const processorWebhookAck = z.object({
  received: z.literal(true),
  event_id: z.string(),
  /** null for an event type the wallet does not act on. */
  topup_id: z.nullable(uuid),
  /** The top-up's status after the event; null as topup_id. */
  status: z.nullable(z.enum(TOPUP_STATUSES)),
  /** Nothing changed: the top-up had already left `pending`, or the event type is not one the wallet acts on. */
  ignored: z.boolean(),
});
