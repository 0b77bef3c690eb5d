import { createHttpHandler } from '../../shared/http/handler';
import { DOCS_PAGE_CSP, docsPageHtml } from '../../shared/http/docs-page';

/** `GET /docs` on every API: the same page, which loads that API's own /openapi.json. */
const page = docsPageHtml();

export const handler = createHttpHandler(async () => (await import('../../shared/http/platform-routes')).platformRoutes.walletDocs, async () => ({ text: page, headers: { 'content-security-policy': DOCS_PAGE_CSP } }));
