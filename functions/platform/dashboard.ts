import { createHttpHandler } from '../../shared/http/handler';
import { dashboardCsp, dashboardPageHtml } from '../../shared/http/dashboard-page';
import { config } from '../../shared/kernel/config';

/** `GET /dashboard` on the console API: the page, told where the wallet and auth APIs answer (WALLET_PUBLIC_URL). */
let page: { html: string; csp: string } | undefined;

export const handler = createHttpHandler(async () => (await import('../../shared/http/platform-routes')).platformRoutes.consoleDashboard, async () => {
  page ??= { html: dashboardPageHtml(config.WALLET_PUBLIC_URL), csp: dashboardCsp(config.WALLET_PUBLIC_URL) };
  return { text: page.html, headers: { 'content-security-policy': page.csp, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' } };
});
