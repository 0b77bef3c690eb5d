import type { Api } from './route';

/**
 * The HTTP front doors. Each is one API Gateway REST API in AWS and one listener on the embedded
 * platform; a route's `api` decides which door serves it. Console routes never reach the public
 * door, and the ledger is reachable only from inside the VPC (AWS) or on loopback (locally).
 */
export type GatewayName = 'public' | 'ledger' | 'console';

/**
 * A stage's throttle: API Gateway's token bucket, `rateLimit` requests per second refilling a
 * bucket of `burstLimit`. On a REST API stage it applies to each method on its own, shared by
 * every caller of that method.
 */
export interface ThrottleSettings {
  rateLimit: number;
  burstLimit: number;
}

export interface GatewayDefinition {
  name: GatewayName;
  apis: readonly Api[];
  description: string;
  /** Embedded platform: default port and the env var that overrides it. */
  localPort: number;
  localPortEnv: string;
  /**
   * The stage's throttle in AWS (lib/wallet-stack.ts) and, by default, the embedded gateway's
   * (local/throttle.ts); null: never throttled (the ledger: spec part 8 sets no rate limit there).
   */
  throttle: ThrottleSettings | null;
  /** Embedded platform: the env var that overrides `throttle` (`<rate>/<burst>` or `off`); none where nothing is throttled. */
  localThrottleEnv: string | null;
}

export const gateways: Record<GatewayName, GatewayDefinition> = {
  public: {
    name: 'public',
    apis: ['wallet', 'auth'],
    description: 'Wallet and auth APIs (public)',
    localPort: 3000,
    localPortEnv: 'PORT',
    throttle: { rateLimit: 100, burstLimit: 200 },
    localThrottleEnv: 'PUBLIC_THROTTLE',
  },
  ledger: {
    name: 'ledger',
    apis: ['ledger'],
    description: 'Ledger API (private: VPC endpoint in AWS, loopback locally)',
    localPort: 8095,
    localPortEnv: 'LEDGER_PORT',
    throttle: null,
    localThrottleEnv: null,
  },
  console: {
    name: 'console',
    apis: ['console'],
    description: 'Console API (operators only; never on the public gateway)',
    localPort: 3001,
    localPortEnv: 'CONSOLE_PORT',
    throttle: { rateLimit: 20, burstLimit: 40 },
    localThrottleEnv: 'CONSOLE_THROTTLE',
  },
};

export const gatewayOf = (api: Api): GatewayName =>
  (Object.values(gateways).find((gateway) => gateway.apis.includes(api)) as GatewayDefinition).name;

export const isGatewayName = (value: unknown): value is GatewayName => typeof value === 'string' && Object.hasOwn(gateways, value);
