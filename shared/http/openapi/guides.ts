import type { GatewayName } from '../gateways';

/**
 * The guide sections of each document's description: Markdown headings, which Redoc shows as
 * their own entries above the operations, so the reference teaches how to call the API before it
 * lists what to call. What each operation adds (its callers, scopes, statuses and codes, its
 * Idempotency-Key rule) is in the operation itself, generated from the manifest.
 */

const ERRORS =
  '## Errors and codes\n\n' +
  'Every error is an RFC 7807 `application/problem+json` body: `type` (`urn:wallet:problem:<code>`), `title`, ' +
  '`status`, `detail`, `code` and `request_id`, plus `errors` (one `{field, message}` per refused input: ' +
  '`body.amount`, `query.limit`, `header.Idempotency-Key`) and `retryable: true` on what is worth retrying with ' +
  'the same request. Branch on `code`, never on `title` or `detail`: codes are stable, the words are not. Each ' +
  'operation lists every status it answers and, per status, its codes; there is no `default`. A few answers ' +
  'belong to no operation: a path no operation serves is 404 `not_found`, a method the path does not serve 405 ' +
  '`method_not_allowed` (with `Allow`), request headers over 16 KiB 431 `headers_too_large`, and a request that ' +
  'is not valid HTTP 400 `invalid_request`. Another tenant\'s object answers 404 exactly as if it did not exist. ' +
  'Quote `request_id` (also the `X-Request-Id` header) when reporting a problem.\n\n' +
  'Amounts are integers in minor units (cents), never floats: a number with a fraction or an exponent anywhere ' +
  'in a request body is refused, but in a field its schema declares decimal (a rate). Ids are UUIDv7 (time ' +
  'ordered); times are ISO 8601 UTC with milliseconds.';

const PAGINATION =
  '## Pagination\n\n' +
  'Listings are newest first and cursor-paged: `GET /v1/merchants?limit=20` answers `{"data": [...], ' +
  '"has_more": true, "next_cursor": "eyJs..."}`; ask `?cursor=<next_cursor>` (the same filters) for the next ' +
  'page, until `has_more` is false and `next_cursor` null. Cursors are opaque and bound to their listing: ' +
  'one from elsewhere is 400. `limit` is an integer from 1 to 100, 50 when absent (a listing whose `limit` says other bounds keeps those), ' +
  'and a value outside is clamped, not refused. Where the objects have `created_at`, `created_after` and ' +
  '`created_before` (ISO 8601 date-times, exclusive) bound the listing; a filtered page may hold fewer than ' +
  '`limit` items and still have more.';

const IDEMPOTENCY =
  '## Idempotency\n\n' +
  'Send `Idempotency-Key: <a value unique to the operation>` (a UUID) on a POST, and retry with the same key ' +
  'after a timeout or a 409 `idempotency_in_flight`, 429 or 503: the operation happens once, and every retry ' +
  'answers the first answer byte for byte, with `Idempotent-Replayed: true` (a refusal is remembered too). ' +
  'Money-moving POSTs require the key; every other POST accepts it. A key is kept 24 hours, scoped to its ' +
  'caller: the same key with another request, or from another caller, is 409 `idempotency_key_reuse`, never ' +
  'someone else\'s answer. Input refused as malformed (400) is not remembered: fix it and send it again.';

const WALLET_AUTH =
  '## Authentication and scopes\n\n' +
  'Every call but `/healthz`, the JWKS, staff login and inbound processor webhooks carries ' +
  '`Authorization: Bearer <credential>`:\n\n' +
  '- an **API key** `sk_{env}_{key-id}_{secret}` (backends only: it acts for the whole tenant, or for one ' +
  'client when bound to it), issued with `POST /v1/api_keys`;\n' +
  '- a **user token**, an RS256 JWT minted with an API key (`POST /v1/auth/user_tokens`) and confined to one ' +
  'wallet user and a subset of the key\'s scopes (for apps; verify it with `/.well-known/jwks.json`);\n' +
  '- an access token of the platform\'s identity provider, or a staff session (`POST /v1/auth/staff_sessions`).\n\n' +
  'Each operation names the credential kinds it admits (`x-principal-kinds`) and the scopes, one of which the ' +
  'caller needs (`x-required-scopes`): `users:read`, `payments:write`, `webhooks:manage`... A missing or bad ' +
  'credential is 401 `unauthenticated`; a kind the operation does not admit 403 `forbidden`; a missing scope ' +
  '403 `insufficient_scope`.';

const WEBHOOKS =
  '## Webhooks and signatures\n\n' +
  'Register an endpoint (`POST /v1/webhook_endpoints`, optionally `event_filters` such as `payment.*`); the ' +
  'answer shows its signing secret once. Each event is POSTed as JSON with `X-Wallet-Signature: ' +
  't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed by the secret>` (Stripe\'s scheme: its ' +
  'libraries verify it) and the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, ' +
  '`webhook-signature`). Verify over the raw bytes, refuse a timestamp more than 5 minutes away, answer 2xx ' +
  'quickly and de-duplicate on the event id: a delivery that fails is retried 12 times over about a day, and ' +
  '`POST /v1/webhook_events/{id}/redeliver` sends one again. Rotating a secret ' +
  '(`POST /v1/webhook_endpoints/{id}/rotate_secret`) keeps the old one signing beside the new during an overlap. ' +
  'Live endpoints take https and public addresses only.';

const SANDBOX =
  '## Sandbox and live keys\n\n' +
  'The key\'s `env` decides whether it moves real money: `sk_sandbox_...` keys (and the user tokens they mint) ' +
  'use the sandbox top-up processor and payout rail, which settle what the request asks ' +
  '(`sandbox_outcome`), and make sandbox webhook endpoints (http, and loopback on the local platform); ' +
  '`sk_live_...` keys are refused by the sandbox gateways and their endpoints must be https. Both act on the ' +
  'same tenant data: the environment is a property of the credential, not a copy of the data. Objects ' +
  'created with a sandbox credential say `livemode: false` where they carry it.';

const LEDGER_AUTH =
  '## Authentication\n\n' +
  'Callers are registered ledger consumers: `Authorization: Bearer <OIDC client-credentials access token>`, ' +
  'matched by its `sub` claim. A consumer sees only the ledgers it created; another\'s is 404. API keys and ' +
  'wallet user tokens are refused.';

const LEDGER_FEED =
  '## The event feed\n\n' +
  '`GET /v1/ledgers/{ledgerId}/events` is a tailing feed, oldest first: ask `?cursor=<next_cursor>` while ' +
  '`has_more` is true. At its end `has_more` is false and `next_cursor` stays set (the last event read, or the ' +
  'cursor sent): stop paging, keep it, and poll with it later for newer events. The feed holds back its last ' +
  'seconds (the settle window), so a slow commit never lands behind a cursor already passed.';

const CONSOLE_AUTH =
  '## Authentication and scopes\n\n' +
  'A staff session (`POST /v1/auth/staff_sessions` on the wallet API): platform staff, vendor support, ' +
  'partner administrators or tenant staff. Each operation names the staff kinds it admits ' +
  '(`x-principal-kinds`) and the scopes it needs (`x-required-scopes`).';

const INTRO: Record<GatewayName, string> = {
  public: 'The wallet and auth APIs, public behind the API gateway: wallets, top-ups, transfers, payments, payouts, a catalog with orders and subscriptions, rewards and webhooks, for many tenants.',
  ledger:
    'The standalone double-entry ledger. Cluster-internal only: `{ledger_url}` is the internal address of the ' +
    'deployment, and there is no public host. In AWS, a caller outside the VPC endpoint is refused 403 ' +
    "`forbidden` by the private API's resource policy before any operation.",
  console: "The operators' console API, never reachable through the public gateway.",
};

const SECTIONS: Record<GatewayName, readonly string[]> = {
  public: [WALLET_AUTH, ERRORS, PAGINATION, IDEMPOTENCY, WEBHOOKS, SANDBOX],
  ledger: [LEDGER_AUTH, ERRORS, PAGINATION, LEDGER_FEED, IDEMPOTENCY],
  console: [CONSOLE_AUTH, ERRORS, PAGINATION, IDEMPOTENCY],
};

/** A document's description: what the API is, then its guides, each a Markdown section. */
export const guideDescription = (gateway: GatewayName): string => [INTRO[gateway], ...SECTIONS[gateway]].join('\n\n');

/** The longest operation summary: a sidebar label, not a sentence. */
export const MAX_SUMMARY_LENGTH = 50;

/**
 * An operation's short summary: the manifest's summary up to its first clause (before `: `, `; `,
 * ` (`, `, ` or ` — `); the whole sentence opens the operation's description.
 */
export const operationLabel = (summary: string): string => summary.split(/: |; | \(|, | — /)[0]!;
