/**
 * Configuration, read from the environment once per process and validated, so a missing or
 * malformed setting fails the first invocation loudly instead of a request deep in a service.
 * The CDK stacks set these on every function; the embedded platform sets them before any handler
 * runs. It is read on first use, not at import: importing a service never freezes a configuration
 * the embedded platform has not set yet.
 *
 * Checked by the small parsers below, not zod: every function reads its configuration, and most
 * workers use nothing else of zod, whose module is a fifth of such a bundle and a fifth of its
 * cold import (docs/performance.md, docs/decisions.md). Each parser takes the variable's value
 * (undefined when unset) and returns the setting, or throws the reason it is refused.
 */

type Parser<T> = (value: string | undefined) => T;

class Refused extends Error {}

function text(value: string, min: number): string {
  if (value.length < min) throw new Refused(`expected at least ${min} character${min === 1 ? '' : 's'}`);
  return value;
}

/** A non-empty string (at least `min` characters), or undefined when unset. */
const optionalText =
  (min = 1): Parser<string | undefined> =>
  (value) =>
    value === undefined ? undefined : text(value, min);

/** A non-empty string, or `fallback` when unset. */
const textOr =
  (fallback: string): Parser<string> =>
  (value) =>
    value === undefined ? fallback : text(value, 1);

/** An absolute URL (surrounding white space trimmed, as zod's `z.url()` does), or undefined when unset. */
const optionalUrl = (): Parser<string | undefined> => (value) => {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  try {
    new URL(trimmed);
  } catch {
    throw new Refused('expected an absolute URL');
  }
  return trimmed;
};

/** A whole number of at least `min` (the variable's text as a number), or `fallback` when unset. */
const integerOr =
  (fallback: number, min: number): Parser<number> =>
  (value) => {
    if (value === undefined) return fallback;
    const number = Number(value);
    if (value.trim() === '' || !Number.isSafeInteger(number)) throw new Refused('expected a whole number');
    if (number < min) throw new Refused(`expected at least ${min}`);
    return number;
  };

/** One of `values` (compared after `normalize`), or `fallback` when unset. */
const oneOf =
  <const V extends readonly string[]>(values: V, fallback: V[number], normalize: (value: string) => string = (value) => value): Parser<V[number]> =>
  (value) => {
    if (value === undefined) return fallback;
    const normalized = normalize(value);
    if (!values.includes(normalized)) throw new Refused(`expected one of ${values.join(', ')}`);
    return normalized;
  };

const TRUTHY = ['true', '1', 'yes', 'on', 'y', 'enabled'];
const FALSY = ['false', '0', 'no', 'off', 'n', 'disabled'];

/** A yes/no word (case-insensitive, the words zod's `z.stringbool()` takes), or `fallback` when unset. */
const flagOr =
  (fallback: boolean): Parser<boolean> =>
  (value) => {
    if (value === undefined) return fallback;
    const word = value.trim().toLowerCase();
    if (TRUTHY.includes(word)) return true;
    if (FALSY.includes(word)) return false;
    throw new Refused(`expected one of ${[...TRUTHY, ...FALSY].join(', ')}`);
  };

const settings = {
  STAGE: textOr('local'),
  AWS_REGION: textOr('us-east-1'),
  LEDGER_TABLE: optionalText(),
  WALLET_TABLE: optionalText(),
  /** Set only by the embedded platform and tests: DynamoDB Local's address. */
  DYNAMODB_ENDPOINT: optionalUrl(),
  /**
   * Set by LocalStack in every Lambda's environment (never on AWS): the SDK sends there by itself;
   * the platform reads it only to know it talks to an emulator (shared/aws/clients.ts, an attempt's time).
   */
  AWS_ENDPOINT_URL: optionalUrl(),
  /** Case-insensitive: `LOG_LEVEL=info npm start` works as `INFO` does. */
  LOG_LEVEL: oneOf(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'], 'INFO', (value) => value.toUpperCase()),
  PLATFORM_VERSION: textOr('0.1.0'),
  /** Ledger API: the OIDC issuer of consumer tokens and the audience they must carry. */
  OIDC_ISSUER: optionalUrl(),
  OIDC_AUDIENCE: textOr('ledger'),
  OIDC_JWKS_URL: optionalUrl(),
  /**
   * The embedded issuer's Lambda (`-c ledgerIssuer=embedded`, shared/ledger/issuer.ts): its KMS
   * signing key, and the name prefix of the Secrets Manager secrets that hold its clients. Its URL
   * is OIDC_ISSUER, the one the ledger's verifier compares `iss` with.
   */
  OIDC_ISSUER_SIGNING_KMS_KEY_ID: optionalText(),
  OIDC_ISSUER_CLIENTS_PREFIX: optionalText(),
  LEDGER_IDEMPOTENCY_RETENTION_SECONDS: integerOr(24 * 3600, 60),
  LEDGER_FEED_SETTLE_MS: integerOr(2_000, 0),
  /** Wallet side: how to reach the ledger, as a client-credentials consumer. */
  LEDGER_API_URL: optionalUrl(),
  LEDGER_TOKEN_URL: optionalUrl(),
  /** Locally: the client credentials themselves. */
  LEDGER_CLIENT_ID: optionalText(),
  LEDGER_CLIENT_SECRET: optionalText(),
  /** AWS: a Secrets Manager secret `{client_id, client_secret}`, read once per container; wins over the two above. */
  LEDGER_CREDENTIALS_SECRET_ARN: optionalText(),
  LEDGER_SCOPES: optionalText(),
  /** Wallet-issued tokens (user tokens, staff sessions): issuer, and the signing keys. AWS: `urn:wallet:<stage>`. */
  WALLET_ISSUER: textOr('urn:wallet:local'),
  /** Local only: JSON `{ current: JWK, previous?: JWK }` of RSA private keys generated into .data/. */
  WALLET_SIGNING_KEYS: optionalText(),
  /**
   * AWS: the KMS asymmetric key (RSA_2048, SIGN_VERIFY) that signs wallet tokens, and a second key
   * verifiers accept (the previous one after a rotation, the next one just before it).
   */
  WALLET_SIGNING_KMS_KEY_ID: optionalText(),
  WALLET_SIGNING_KMS_PREVIOUS_KEY_ID: optionalText(),
  /** The identity provider realm whose access tokens are wallet credentials; no IDP_ISSUER, no IdP tokens. */
  IDP_ISSUER: optionalUrl(),
  IDP_AUDIENCE: textOr('wallet'),
  IDP_JWKS_URL: optionalUrl(),
  /** The wallet API's public base URL (with the stage path in AWS): the sandbox processor POSTs its webhooks there. */
  WALLET_PUBLIC_URL: optionalUrl(),
  /** Signs the sandbox top-up processor's webhooks; unset, the sandbox gateway is not offered. */
  SANDBOX_PROCESSOR_SECRET: optionalText(32),
  /** How long a payment authorization holds the payer's money (default 7 days). */
  PAYMENT_HOLD_SECONDS: integerOr(7 * 24 * 3600, 1),
  /** How long an open order holds its stock (docs/orders.md). */
  ORDER_HOLD_SECONDS: integerOr(900, 1),
  /**
   * Where CloudWatch metrics go (./metrics.ts): `stdout`, as Embedded Metric Format log lines
   * CloudWatch turns into metrics (AWS); `off` writes none (the embedded platform's default:
   * `METRICS=stdout npm start` shows them).
   */
  METRICS: oneOf(['stdout', 'off'], 'stdout'),
  /** The embedded platform checks every response against the manifest's schema. */
  VALIDATE_RESPONSES: flagOr(false),
  /**
   * What sandbox webhook endpoints may reach besides public addresses: `false` nothing (AWS: the
   * CDK never sets it), `loopback` 127/8 and ::1 (the embedded platform's default, for receivers on
   * 127.0.0.1), `true` loopback and private networks (10/8, 172.16/12, 192.168/16, fc00::/7). Live
   * endpoints never reach them; link-local (metadata), CGNAT and the rest stay refused always
   * (shared/wallet/webhooks/addresses.ts).
   */
  WEBHOOK_ALLOW_PRIVATE_TARGETS: oneOf(['false', 'loopback', 'true'], 'false'),
} satisfies Record<string, Parser<unknown>>;

export type Config = { readonly [K in keyof typeof settings]: ReturnType<(typeof settings)[K]> };

/** The configuration of `env`, or an error naming every setting refused and why. */
export function parseConfig(env: Readonly<Record<string, string | undefined>>): Config {
  const parsed: Record<string, unknown> = {};
  const refused: string[] = [];
  for (const [name, parse] of Object.entries(settings) as [string, Parser<unknown>][]) {
    try {
      parsed[name] = parse(env[name]);
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      refused.push(`${name}: ${error.message}`);
    }
  }
  if (refused.length > 0) throw new Error(`Invalid configuration: ${refused.join('; ')}`);
  return parsed as Config;
}

function load(): Config {
  return parseConfig(process.env);
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
