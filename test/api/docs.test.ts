import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../local/platform';
import { gateways, type GatewayName } from '../../shared/http/gateways';
import { routes } from '../../shared/routes';
import { call, startTestPlatform } from '../support/platform';

/**
 * The API reference page as a person sees it: each API's /docs opened in a real headless Chromium
 * (Debian's, installed by scripts/install-chromium.sh), which must render every operation of that
 * API's document while loading nothing from outside loopback.
 */

const CHROMIUM = '/usr/bin/chromium';
/** No network beyond what the page asks for: no component updates, sync, QUIC or first-run fetches. */
const QUIET_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let platform: Platform;
let browser: BrowserContext;
let profile: string;
/** Every URL the browser requested, page, scripts and workers alike. */
const requested: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: the docs page test needs Debian's Chromium; install it with \`bash scripts/install-chromium.sh\``);
  }
  platform = await startTestPlatform();
  profile = mkdtempSync(join(tmpdir(), 'wallet-chromium-'));
  // A persistent context is how Playwright takes a fresh --user-data-dir of our own.
  browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: QUIET_FLAGS });
  browser.on('request', (request) => requested.push(request.url()));
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

const operationsOf = (gateway: GatewayName) => routes.filter((route) => gateways[gateway].apis.includes(route.api)).map((route) => route.operationId).sort();

describe('GET /docs', () => {
  it('answers an HTML page and the renderer script, as the documents say', async () => {
    const page = await call(platform.urls.public, 'GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('docs/redoc.standalone.js');
    const script = await call(platform.urls.ledger, 'GET', '/docs/redoc.standalone.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(script.text.length).toBeGreaterThan(100_000);
  });

  // Every API at /docs, and the page opened with a trailing slash (the gateway routes /docs/ to it too).
  const pages = [...(Object.keys(gateways) as GatewayName[]).map((gateway) => [gateway, '/docs'] as const), ['public', '/docs/'] as const];
  it.each(pages)('renders every operation of the %s API at %s in headless Chromium, loading nothing remote', async (gateway, path) => {
    const tab = await browser.newPage();
    // The page's Content-Security-Policy would block a remote load: none may even be tried.
    const refused: string[] = [];
    tab.on('console', (message) => {
      if (message.type() === 'error') refused.push(message.text());
    });
    try {
      const before = requested.length;
      await tab.goto(`${platform.urls[gateway]}${path}`);
      const expected = operationsOf(gateway);
      // Redoc gives each operation's section the id operation/<operationId>.
      await tab.waitForSelector(`[id="operation/${expected[expected.length - 1]}"]`, { timeout: 30_000 });
      const rendered = await tab.$$eval('[id^="operation/"]', (sections) => sections.map((section) => section.id.slice('operation/'.length)));
      expect([...new Set(rendered)].sort()).toEqual(expected);
      expect(await tab.title()).toMatch(/API/);

      const origin = new URL(platform.urls[gateway]).origin;
      const seen = requested.slice(before);
      expect(seen).toEqual(expect.arrayContaining([`${origin}${path}`, `${origin}/docs/redoc.standalone.js`, `${origin}/openapi.json`]));
      expect(seen.filter((url) => !url.startsWith(`${origin}/`) && !/^(data|blob):/.test(url))).toEqual([]);
      expect(refused).toEqual([]);
    } finally {
      await tab.close();
    }
  });
});
