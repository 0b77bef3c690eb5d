import { page } from '../../http/schemas';
import { anyEventEnvelope } from './event-types';
import { webhookRoutes } from './routes';

/**
 * The webhook routes as the manifest documents them: the event listing typed per event type, so
 * the OpenAPI document carries every payload shape (and the API tests validate every event they
 * read against it). The functions import ./routes.ts, where the listing answers the generic
 * envelope: typing it there would load every domain's payload schemas into every webhook
 * function's cold start.
 */
export const documentedWebhookRoutes = {
  ...webhookRoutes,
  listWebhookEvents: {
    ...webhookRoutes.listWebhookEvents,
    response: { ...webhookRoutes.listWebhookEvents.response, body: page(anyEventEnvelope) },
  },
};
