import { createHttpHandler } from '../../shared/http/handler';
import { dashboardScript } from '../../shared/http/dashboard-page';

/** `GET /dashboard/app.js` on the console API: the app, a file shipped beside this bundle. */
export const handler = createHttpHandler(async () => (await import('../../shared/http/platform-routes')).platformRoutes.consoleDashboardApp, async () => ({
  text: dashboardScript(import.meta.url),
  headers: { 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' },
}));
