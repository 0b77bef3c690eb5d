import { createHttpHandler } from '../../shared/http/handler';
import { docsRendererScript } from '../../shared/http/docs-page';

/** `GET /docs/redoc.standalone.js` on every API: the renderer, a file shipped beside this bundle. */
export const handler = createHttpHandler(async () => (await import('../../shared/http/platform-routes')).platformRoutes.walletDocsRenderer, async () => ({
  text: docsRendererScript(import.meta.url),
  // The same bytes for a deployment's lifetime: a browser need not fetch them again for a day.
  headers: { 'cache-control': 'public, max-age=86400' },
}));
