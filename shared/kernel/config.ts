import * as z from 'zod';

/**
 * Configuration, read from the environment once per process and validated, so a missing or
 * malformed setting fails the first invocation loudly instead of a request deep in a service.
 * The CDK stacks set these on every function; the embedded platform sets them before any handler
 * runs. It is read on first use, not at import: importing a service never freezes a configuration
 * the embedded platform has not set yet. The schema too is built on first use (about a hundred
 * zod schemas, a few milliseconds of every function's cold import otherwise).
 */
const configSchema = () =>
  z.object({
    STAGE: z.string().min(1).default('local'),
    AWS_REGION: z.string().min(1).default('us-east-1'),
    LEDGER_TABLE: z.string().min(1).optional(),
    WALLET_TABLE: z.string().min(1).optional(),
    /** Set only by the embedded platform and tests: DynamoDB Local's address. */
    DYNAMODB_ENDPOINT: z.url().optional(),
    /** Case-insensitive: `LOG_LEVEL=info npm start` works as `INFO` does. */
    LOG_LEVEL: z.preprocess((value) => (typeof value === 'string' ? value.toUpperCase() : value), z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']).default('INFO')),
    PLATFORM_VERSION: z.string().min(1).default('0.1.0'),
    /** Ledger API: the OIDC issuer of consumer tokens and the audience they must carry. */
    OIDC_ISSUER: z.url().optional(),
    OIDC_AUDIENCE: z.string().min(1).default('ledger'),
    OIDC_JWKS_URL: z.url().optional(),
    /**
     * The embedded issuer's Lambda (`-c ledgerIssuer=embedded`, shared/ledger/issuer.ts): its KMS
     * signing key, and the name prefix of the Secrets Manager secrets that hold its clients. Its URL
     * is OIDC_ISSUER, the one the ledger's verifier compares `iss` with.
     */
    OIDC_ISSUER_SIGNING_KMS_KEY_ID: z.string().min(1).optional(),
    OIDC_ISSUER_CLIENTS_PREFIX: z.string().min(1).optional(),
    LEDGER_IDEMPOTENCY_RETENTION_SECONDS: z.coerce.number().int().min(60).default(24 * 3600),
    LEDGER_FEED_SETTLE_MS: z.coerce.number().int().min(0).default(2_000),
    /** Wallet side: how to reach the ledger, as a client-credentials consumer. */
    LEDGER_API_URL: z.url().optional(),
    LEDGER_TOKEN_URL: z.url().optional(),
    /** Locally: the client credentials themselves. */
    LEDGER_CLIENT_ID: z.string().min(1).optional(),
    LEDGER_CLIENT_SECRET: z.string().min(1).optional(),
    /** AWS: a Secrets Manager secret `{client_id, client_secret}`, read once per container; wins over the two above. */
    LEDGER_CREDENTIALS_SECRET_ARN: z.string().min(1).optional(),
    LEDGER_SCOPES: z.string().min(1).optional(),
    /** Wallet-issued tokens (user tokens, staff sessions): issuer, and the signing keys. AWS: `urn:wallet:<stage>`. */
    WALLET_ISSUER: z.string().min(1).default('urn:wallet:local'),
    /** Local only: JSON `{ current: JWK, previous?: JWK }` of RSA private keys generated into .data/. */
    WALLET_SIGNING_KEYS: z.string().min(1).optional(),
    /**
     * AWS: the KMS asymmetric key (RSA_2048, SIGN_VERIFY) that signs wallet tokens, and a second key
     * verifiers accept (the previous one after a rotation, the next one just before it).
     */
    WALLET_SIGNING_KMS_KEY_ID: z.string().min(1).optional(),
    WALLET_SIGNING_KMS_PREVIOUS_KEY_ID: z.string().min(1).optional(),
    /** The identity provider realm whose access tokens are wallet credentials; no IDP_ISSUER, no IdP tokens. */
    IDP_ISSUER: z.url().optional(),
    IDP_AUDIENCE: z.string().min(1).default('wallet'),
    IDP_JWKS_URL: z.url().optional(),
    /** The wallet API's public base URL (with the stage path in AWS): the sandbox processor POSTs its webhooks there. */
    WALLET_PUBLIC_URL: z.url().optional(),
    /** Signs the sandbox top-up processor's webhooks; unset, the sandbox gateway is not offered. */
    SANDBOX_PROCESSOR_SECRET: z.string().min(32).optional(),
    /** How long a payment authorization holds the payer's money (default 7 days). */
    PAYMENT_HOLD_SECONDS: z.coerce.number().int().min(1).default(7 * 24 * 3600),
    /** How long an open order holds its stock (docs/orders.md). */
    ORDER_HOLD_SECONDS: z.coerce.number().int().min(1).default(900),
    /**
     * Where CloudWatch metrics go (./metrics.ts): `stdout`, as Embedded Metric Format log lines
     * CloudWatch turns into metrics (AWS); `off` writes none (the embedded platform's default:
     * `METRICS=stdout npm start` shows them).
     */
    METRICS: z.enum(['stdout', 'off']).default('stdout'),
    /** The embedded platform checks every response against the manifest's schema. */
    VALIDATE_RESPONSES: z.stringbool().default(false),
    /**
     * What sandbox webhook endpoints may reach besides public addresses: `false` nothing (AWS: the
     * CDK never sets it), `loopback` 127/8 and ::1 (the embedded platform's default, for receivers on
     * 127.0.0.1), `true` loopback and private networks (10/8, 172.16/12, 192.168/16, fc00::/7). Live
     * endpoints never reach them; link-local (metadata), CGNAT and the rest stay refused always
     * (shared/wallet/webhooks/addresses.ts).
     */
    WEBHOOK_ALLOW_PRIVATE_TARGETS: z.enum(['false', 'loopback', 'true']).default('false'),
  });

export type Config = z.infer<ReturnType<typeof configSchema>>;

function load(): Config {
  const parsed = configSchema().safeParse(process.env);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration: ${fields.join('; ')}`);
  }
  return parsed.data;
}

let loaded: Config | undefined;

export const config: Config = new Proxy({} as Config, {
  get: (_target, name) => (loaded ??= load())[name as keyof Config],
  has: (_target, name) => name in (loaded ??= load()),
  ownKeys: () => Reflect.ownKeys((loaded ??= load())),
  getOwnPropertyDescriptor: (_target, name) => Reflect.getOwnPropertyDescriptor((loaded ??= load()), name),
});

/** The table name a function was bound to; failing here means the stack forgot bindTable. */
export function tableName(envVar: 'LEDGER_TABLE' | 'WALLET_TABLE'): string {
  const name = config[envVar];
  if (!name) throw new Error(`${envVar} is not set: this function is not bound to that table`);
  return name;
}
