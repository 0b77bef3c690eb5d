import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * Builds the dashboard's single-page app (dashboard/app/main.ts: Preact with htm, Chart.js) into
 * one browser module, the text `GET /dashboard/app.js` serves. scripts/bundle.ts writes it beside
 * the console's dashboard function; the embedded platform builds it once at start.
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export async function buildDashboardApp(): Promise<string> {
  const result = await build({
    absWorkingDir: root,
    entryPoints: [join(root, 'dashboard', 'app', 'main.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'warning',
  });
  return result.outputFiles[0]!.text;
}

/** The embedded platform's copy: a file in a fresh temporary folder, and how to remove it. */
export async function writeDashboardApp(): Promise<{ file: string; remove(): void }> {
  const folder = mkdtempSync(join(tmpdir(), 'wallet-dashboard-'));
  const file = join(folder, 'app.js');
  writeFileSync(file, await buildDashboardApp());
  return { file, remove: () => rmSync(folder, { recursive: true, force: true }) };
}
