/**
 * The one zod the shipped code imports: zod's functional build (`zod/mini`), with zod's English
 * messages (the classic build loads them at its import; mini leaves the locale to the caller).
 * Every schema of the platform is built through it, `import * as z from '…/kernel/zod'`, so a
 * function carries only the schema kinds and checks it uses: classic zod puts every method on
 * every schema and weighed 100 KiB and about 8 ms of every function's cold import
 * (docs/performance.md, "Bundles and cold imports"). Lint refuses `zod` itself outside tests.
 */
import { config } from 'zod/mini';
import { en } from 'zod/locales';

config(en());

export * from 'zod/mini';
