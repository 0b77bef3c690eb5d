import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/kernel/config';

/**
 * The configuration is checked without zod (shared/kernel/config.ts): the same defaults and the
 * same refusals the zod schema gave, every refused setting named in one error.
 */
describe('parseConfig', () => {
  it('gives the defaults for an empty environment', () => {
    const config = parseConfig({});
    expect(config).toMatchObject({
      STAGE: 'local',
      AWS_REGION: 'us-east-1',
      LOG_LEVEL: 'INFO',
      OIDC_AUDIENCE: 'ledger',
      LEDGER_IDEMPOTENCY_RETENTION_SECONDS: 86_400,
      LEDGER_FEED_SETTLE_MS: 2_000,
      WALLET_ISSUER: 'urn:wallet:local',
      IDP_AUDIENCE: 'wallet',
      PAYMENT_HOLD_SECONDS: 604_800,
      ORDER_HOLD_SECONDS: 900,
      METRICS: 'stdout',
      VALIDATE_RESPONSES: false,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false',
    });
    expect(config.WALLET_TABLE).toBeUndefined();
    expect(config.DYNAMODB_ENDPOINT).toBeUndefined();
  });

  it('reads what is set: names, URLs (trimmed), whole numbers, words of a list, yes/no', () => {
    const config = parseConfig({
      WALLET_TABLE: 'wallet',
      DYNAMODB_ENDPOINT: ' http://127.0.0.1:8000 ',
      LOG_LEVEL: 'debug',
      ORDER_HOLD_SECONDS: '60',
      LEDGER_FEED_SETTLE_MS: '0',
      METRICS: 'off',
      VALIDATE_RESPONSES: 'TRUE',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'loopback',
      SANDBOX_PROCESSOR_SECRET: 'x'.repeat(32),
      UNRELATED: 'ignored',
    });
    expect(config).toMatchObject({
      WALLET_TABLE: 'wallet',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
      LOG_LEVEL: 'DEBUG',
      ORDER_HOLD_SECONDS: 60,
      LEDGER_FEED_SETTLE_MS: 0,
      METRICS: 'off',
      VALIDATE_RESPONSES: true,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'loopback',
    });
    expect(config).not.toHaveProperty('UNRELATED');
    expect(parseConfig({ VALIDATE_RESPONSES: 'no' }).VALIDATE_RESPONSES).toBe(false);
  });

  it('refuses malformed settings, naming each with its reason', () => {
    const refuse = (env: Record<string, string>) => () => parseConfig(env);
    expect(refuse({ WALLET_TABLE: '' })).toThrow('Invalid configuration: WALLET_TABLE: expected at least 1 character');
    expect(refuse({ DYNAMODB_ENDPOINT: 'localhost 8000' })).toThrow('DYNAMODB_ENDPOINT: expected an absolute URL');
    expect(refuse({ ORDER_HOLD_SECONDS: '0' })).toThrow('ORDER_HOLD_SECONDS: expected at least 1');
    expect(refuse({ ORDER_HOLD_SECONDS: '1.5' })).toThrow('ORDER_HOLD_SECONDS: expected a whole number');
    expect(refuse({ ORDER_HOLD_SECONDS: '' })).toThrow('ORDER_HOLD_SECONDS: expected a whole number');
    expect(refuse({ LEDGER_IDEMPOTENCY_RETENTION_SECONDS: '59' })).toThrow('expected at least 60');
    expect(refuse({ LOG_LEVEL: 'verbose' })).toThrow('LOG_LEVEL: expected one of DEBUG, INFO, WARN, ERROR, SILENT');
    expect(refuse({ VALIDATE_RESPONSES: 'maybe' })).toThrow('VALIDATE_RESPONSES: expected one of');
    expect(refuse({ SANDBOX_PROCESSOR_SECRET: 'short' })).toThrow('SANDBOX_PROCESSOR_SECRET: expected at least 32 characters');
    expect(refuse({ METRICS: 'stderr', IDP_ISSUER: 'nope' })).toThrow(/^Invalid configuration: IDP_ISSUER: expected an absolute URL; METRICS: expected one of stdout, off$/);
  });
});
