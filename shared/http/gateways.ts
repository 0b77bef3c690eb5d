import type { Api } from './route';

/**
 * The HTTP front doors. Each is one API Gateway REST API in AWS and one listener on the embedded
 * platform; a route's `api` decides which door serves it. Console routes never reach the public
 * door, and the ledger is reachable only from inside the VPC (AWS) or on loopback (locally).
 */
export type GatewayName = 'public' | 'ledger' | 'console';

export interface GatewayDefinition {
  name: GatewayName;
  apis: readonly Api[];
  description: string;
  /** Embedded platform: default port and the env var that overrides it. */
  localPort: number;
  localPortEnv: string;
}

export const gateways: Record<GatewayName, GatewayDefinition> = {
  public: {
    name: 'public',
    apis: ['wallet', 'auth'],
    description: 'Wallet and auth APIs (public)',
    localPort: 3000,
    localPortEnv: 'PORT',
  },
  ledger: {
    name: 'ledger',
    apis: ['ledger'],
    description: 'Ledger API (private: VPC endpoint in AWS, loopback locally)',
    localPort: 8095,
    localPortEnv: 'LEDGER_PORT',
  },
  console: {
    name: 'console',
    apis: ['console'],
    description: 'Console API (operators only; never on the public gateway)',
    localPort: 3001,
    localPortEnv: 'CONSOLE_PORT',
  },
};

export const gatewayOf = (api: Api): GatewayName =>
  (Object.values(gateways).find((gateway) => gateway.apis.includes(api)) as GatewayDefinition).name;

export const isGatewayName = (value: unknown): value is GatewayName => typeof value === 'string' && Object.hasOwn(gateways, value);
