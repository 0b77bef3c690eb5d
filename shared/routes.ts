import type { AnyRoute } from './http/route';
import { clientRoutes } from './wallet/catalog/client-routes';
import { exploreRoutes } from './wallet/catalog/explore-routes';
import { offeringRoutes } from './wallet/catalog/routes';
import { orderRoutes } from './wallet/orders/routes';
import { subscriptionRoutes } from './wallet/subscriptions/routes';
import { reconciliationRoutes } from './wallet/reconciliation/routes';
import { rewardRoutes } from './wallet/rewards/routes';
import { authRoutes } from './wallet/auth/routes';
import { consoleRoutes } from './wallet/console/routes';
import { ledgerRoutes } from './ledger/routes';
import { merchantRoutes } from './wallet/merchants/routes';
import { paymentRoutes } from './wallet/payments/routes';
import { payoutRoutes } from './wallet/payouts/routes';
import { platformRoutes } from './http/platform-routes';
import { tenancyRoutes } from './wallet/tenancy/routes';
import { topupRoutes } from './wallet/topups/routes';
import { transferRoutes } from './wallet/transfers/routes';
import { webhookRoutes } from './wallet/webhooks/routes';
import { anyEventEnvelope } from './event-types';
import { page } from './http/schemas';

/**
 * The webhook routes as the manifest documents them: the event listing typed per event type, so
 * the OpenAPI document carries every payload shape (and the API tests validate every event they
 * read against it). The functions import webhooks/routes.ts, where the listing answers the
 * generic envelope: typing it there would load every domain's payload schemas (./event-types.ts)
 * into every webhook function's cold start.
 */
const documentedWebhookRoutes = {
  ...webhookRoutes,
  listWebhookEvents: {
    ...webhookRoutes.listWebhookEvents,
    response: { ...webhookRoutes.listWebhookEvents.response, body: page(anyEventEnvelope) },
  },
};

/**
 * THE route manifest: every endpoint of every API, once. Each area keeps its entries next to its
 * schemas (shared/<area>/routes.ts) so a function imports only its own area; this list joins them
 * for the consumers that need all of them: the CDK stacks, the local gateway, the OpenAPI
 * generator and the manifest tests.
 */
export const routes: readonly AnyRoute[] = [
  ...Object.values(platformRoutes),
  ...Object.values(ledgerRoutes),
  ...Object.values(authRoutes),
  ...Object.values(tenancyRoutes),
  ...Object.values(consoleRoutes),
  ...Object.values(topupRoutes),
  ...Object.values(transferRoutes),
  ...Object.values(documentedWebhookRoutes),
  ...Object.values(merchantRoutes),
  ...Object.values(paymentRoutes),
  ...Object.values(payoutRoutes),
  ...Object.values(clientRoutes),
  ...Object.values(offeringRoutes),
  ...Object.values(exploreRoutes),
  ...Object.values(orderRoutes),
  ...Object.values(subscriptionRoutes),
  ...Object.values(rewardRoutes),
  ...Object.values(reconciliationRoutes),
];
