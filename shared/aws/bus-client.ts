import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { sdkClientConfig } from './clients';

/**
 * The EventBridge client and the one command the platform sends: ./transport.ts loads this module
 * on the first publish (a dynamic import of the package itself would bundle every command of it).
 */
export { EventBridgeClient, PutEventsCommand };

/** The container's client (./clients.ts settings). */
export const newEventBridgeClient = (): EventBridgeClient => new EventBridgeClient(sdkClientConfig());
