/**
 * `npm run bench:auth`: how long a refused credential takes, by why it is refused, against the
 * embedded platform over HTTP. A wrong secret of a real API key and an unknown key id, and a wrong
 * password of a real staff account and an unknown email, must cost about the same (a caller must
 * not learn which keys or emails exist by timing the refusal). Measured interleaved, one of each
 * in turn; prints each pair's medians and their ratio (about 1 is the goal; the tests hold the
 * answers alike, this holds the times, which no test may assert on a machine of unknown speed).
 * Settings: BENCH_ROUNDS (pairs per case, default 150).
 */
import '../local/sdk-node-warning';
import { startPlatform } from '../local/platform';
import { uuidv7 } from '../shared/kernel/ids';
import { routes } from '../shared/routes';
import { TENANT_SCOPES } from '../shared/wallet/auth/scopes';
import { queues, workers } from '../shared/workers';
import { apiKeyFor, staffAccount, staffToken } from '../test/support/credentials';
import { benchSetting } from './measure';

const rounds = benchSetting('BENCH_ROUNDS', 150, { integer: true });

const platform = await startPlatform({
  ports: { public: 0, ledger: 0, console: 0 },
  issuerPort: 0,
  routes,
  workers,
  queues,
  tablePrefix: `benchauth${Date.now()}`,
  env: { LOG_LEVEL: 'SILENT' },
  // It measures refusals, not the stage's throttle.
  throttle: { public: null, console: null },
});

/** Nanoseconds one request takes, whatever it answers. */
async function timed(path: string, init: RequestInit): Promise<number> {
  const started = process.hrtime.bigint();
  const response = await fetch(`${platform.urls.public}${path}`, init);
  await response.arrayBuffer();
  return Number(process.hrtime.bigint() - started);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function pair(name: string, first: [string, () => Promise<number>], second: [string, () => Promise<number>]): Promise<void> {
  for (let i = 0; i < 10; i += 1) await Promise.all([first[1](), second[1]()]); // warm up
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < rounds; i += 1) {
    a.push(await first[1]());
    b.push(await second[1]());
  }
  const ms = (ns: number) => (ns / 1e6).toFixed(2);
  console.log(`${name}: ${first[0]} ${ms(median(a))} ms, ${second[0]} ${ms(median(b))} ms (medians of ${rounds}); ratio ${(median(a) / median(b)).toFixed(2)}`);
}

try {
  const staff = await staffToken(platform, { role: 'platform' });
  const tenant = await fetch(`${platform.urls.public}/v1/tenants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${staff}`, 'content-type': 'application/json', 'idempotency-key': uuidv7() },
    body: JSON.stringify({ name: 'Bench auth', currency: 'USD' }),
  }).then((r) => r.json() as Promise<{ id: string }>);
  const key = await apiKeyFor(platform, tenant.id, [...TENANT_SCOPES]);
  const [, env, keyId] = key.split('_');
  const hex = () => uuidv7().replace(/-/g, '');
  const withKey = (credential: string) => () => timed('/v1/fee_plan', { headers: { authorization: `Bearer ${credential}` } });
  await pair('API key refused', ['wrong secret', () => withKey(`sk_${env}_${keyId}_${hex()}${hex()}`)()], ['unknown key id', () => withKey(`sk_${env}_${hex()}_${hex()}${hex()}`)()]);

  const login = (email: string) => () =>
    timed('/v1/auth/staff_sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: `not the password ${uuidv7()}` }) });
  // Few rounds: five wrong passwords lock the account (its refusals then cost nothing), so each round uses a fresh account.
  const fresh = async () => (await staffAccount(platform, { role: 'platform' })).email;
  await pair('staff login refused', ['wrong password', async () => login(await fresh())()], ['unknown email', () => login(`nobody-${uuidv7()}@example.test`)()]);
} finally {
  await platform.stop();
}
