import * as z from 'zod';
import { cursor, integerJson, pageLimit, timestamp, uuid, createdRange } from '../../http/schemas';
import { SANDBOX_OUTCOMES } from './processors';
import { TOPUP_STATUSES } from './states';

/** Request and response shapes of the top-up routes (spec part 4 items 18 and 23, part 6 topup.*). */

/** The ledger's bound on one leg (docs/ledger.md): a top-up is at most one leg's worth. */
export const MAX_TOPUP_AMOUNT = 2 ** 45;
export const PUSH_TOKEN_MAX = 4096;
export const DEVICE_PLATFORMS = ['ios', 'android', 'web'] as const;
export const RESOLVE_ACTIONS = ['credit_confirmed', 'refund'] as const;
export type ResolveAction = (typeof RESOLVE_ACTIONS)[number];


export const gatewayName = z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'must be a gateway name, such as sandbox');
const currencyCode = z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code, such as USD');

export const topupCreate = z
  .object({
    /** The user to credit; a user token may omit it (its own user). */
    user_id: uuid.optional(),
    /** Integer minor units of `currency`. */
    amount: z.number().int().min(1).max(MAX_TOPUP_AMOUNT),
    /** Must be the tenant's currency. */
    currency: currencyCode,
    /** Default `sandbox`. */
    gateway: gatewayName.optional(),
    /** Sandbox gateway only, and never with a live API key: what the sandbox processor will confirm. */
    sandbox_outcome: z.enum(SANDBOX_OUTCOMES).optional(),
  })
  .strict();
export type TopupCreate = z.infer<typeof topupCreate>;

export const topup = z
  .object({
    id: uuid,
    user_id: uuid,
    /** What the user pays the processor, in minor units of `currency`. */
    amount: z.number().int(),
    currency: z.string(),
    /** The tenant's top-up fee on the credited amount, paid by the user (deducted). */
    fee: z.number().int(),
    /** What the wallet is (or will be) credited: the credited amount minus the fee. */
    net_amount: z.number().int(),
    gateway: z.string(),
    status: z.enum(TOPUP_STATUSES),
    /** The processor's id of the payment intent. */
    processor_ref: z.string(),
    /** What the processor confirmed; null until it did. */
    confirmed_amount: z.number().int().nullable(),
    confirmed_currency: z.string().nullable(),
    /** `declined` (failed) or `refunded_after_mismatch` (refunded); null otherwise. */
    failure_reason: z.string().nullable(),
    /** How an operator resolved an amount mismatch. */
    resolution: z.enum(RESOLVE_ACTIONS).nullable(),
    /** The ledger transaction that credited the wallet. */
    ledger_transaction_id: uuid.nullable(),
    /** The processor's refund of a refunded mismatch (absent otherwise). */
    processor_refund_ref: z.string().optional(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Topup' });
export type Topup = z.infer<typeof topup>;

/** The creation answer adds what the client needs to pay (exactly one is set, by the gateway's flow). */
export const topupCreated = topup.extend({ client_secret: z.string().nullable(), redirect_url: z.string().nullable() });

export const topupListQuery = z.object({ user_id: uuid.optional(), ...createdRange, cursor, limit: pageLimit() }).strict();

export const topupResolve = z.object({ action: z.enum(RESOLVE_ACTIONS) }).strict();

export const topupGateways = z.object({
  data: z.array(z.object({ name: z.string(), flow: z.enum(['client_secret', 'redirect']), currencies: z.array(z.string()) })),
});

export const deviceCreate = z
  .object({
    /** The device's user; a user token or IdP token may omit it (its own user). */
    user_id: uuid.optional(),
    platform: z.enum(DEVICE_PLATFORMS),
    /** APNs device token, FCM registration token, or a Web Push subscription (printable ASCII). */
    // Printable ASCII with no space at either end, so a blank token fails the schema as documented, not the service.
    push_token: z.string().min(1).max(PUSH_TOKEN_MAX).regex(/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/, 'must be printable ASCII, not blank, with no space at either end'),
  })
  .strict();
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
  topup_id: uuid.nullable(),
  /** The top-up's status after the event; null as topup_id. */
  status: z.enum(TOPUP_STATUSES).nullable(),
  /** Nothing changed: the top-up had already left `pending`, or the event type is not one the wallet acts on. */
  ignored: z.boolean(),
});
