import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWalletClient } from '../../client/wallet';
import type { Platform } from '../../local/platform';
import { seedOnFirstStart } from '../../local/seed';
import type { TriggerContext } from '../../scripts/trigger/fixtures';
import { contractCheckedFetch } from './contract';
import { startTestPlatform } from './platform';

/**
 * The embedded platform as `npm run webhooks:listen` and `npm run trigger` find it on a laptop:
 * platform.json and bootstrap.json in a data folder (DATA_DIR), and the trigger's context on the
 * demo tenant's sandbox key, running the scheduled workers itself as a test can.
 */

/**
 * The event types whose recipes wait for a hold to run out (scripts/trigger/recipes.ts): they
 * fire only where the holds are seconds long, and every other recipe acts on an order or an
 * authorization while it is held. One platform's holds cannot serve both (the configuration is
 * read once per process), so test/api/trigger-expiry.test.ts fires these on short holds and
 * test/api/listen-trigger.test.ts the rest on the default ones.
 */
export const HOLD_EXPIRY_TYPES = ['order.expired', 'payment.expired'] as const;

export interface TriggerPlatform {
  platform: Platform;
  dataDir: string;
  ctx: TriggerContext;
  /** Stops the platform and removes the data folder. */
  stop: () => Promise<void>;
}

/** A test platform (with `env` for its handlers), seeded as on a first `npm start`, and its trigger context. */
export async function startTriggerPlatform(env: Record<string, string> = {}): Promise<TriggerPlatform> {
  const platform = await startTestPlatform({ env });
  const dataDir = mkdtempSync(join(tmpdir(), 'wallet-listen-'));
  const { bootstrap } = await seedOnFirstStart(platform, dataDir);
  // What npm start writes once it is up; the test process plays the platform's pid.
  writeFileSync(
    join(dataDir, 'platform.json'),
    JSON.stringify({ pid: process.pid, urls: platform.urls, oidc_issuer: platform.issuer.issuer, dynamodb_endpoint: platform.dynamodbEndpoint, tables: platform.tables }),
  );
  const ctx: TriggerContext = {
    wallet: createWalletClient({ baseUrl: platform.urls.public, credential: bootstrap.demo_tenant.api_key, fetch: contractCheckedFetch }),
    currency: bootstrap.demo_tenant.currency,
    say: () => undefined,
    runScheduled: async (worker) => void (await platform.scheduler.run(worker)),
  };
  const stop = async () => {
    try {
      await platform.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  };
  return { platform, dataDir, ctx, stop };
}
