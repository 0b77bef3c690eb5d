import { queueTransport } from '../../aws/queue';
import { config } from '../../kernel/config';
import { AppError } from '../../kernel/errors';
import { CURRENCY_MINOR_UNITS } from '../tenancy/currencies';
import type { PayoutRail, RailRegistry } from './rails';
import { createSandboxRail, SANDBOX_RAIL } from './sandbox';

/**
 * The payout rails this deployment offers, built once per container on first use from the
 * configuration: the sandbox when SANDBOX_PROCESSOR_SECRET is set. A real rail is added here with
 * its own settings (docs/payouts.md "Adding a rail").
 */

let registry: RailRegistry | undefined;

export function payoutRails(): RailRegistry {
  if (registry) return registry;
  const rails: PayoutRail[] = [];
  if (config.SANDBOX_PROCESSOR_SECRET) {
    rails.push(
      createSandboxRail({
        secret: config.SANDBOX_PROCESSOR_SECRET,
        // Resolved per send: the embedded platform installs its queue driver before handlers run.
        transport: { send: (queue, body, options) => queueTransport().send(queue, body, options) },
        currencies: Object.keys(CURRENCY_MINOR_UNITS),
      }),
    );
  }
  registry = new Map(rails.map((rail) => [rail.name, rail]));
  return registry;
}

export const DEFAULT_RAIL = SANDBOX_RAIL;

/** Refuses: invalid_request (no such rail here). */
export function railNamed(name: string): PayoutRail {
  const rail = payoutRails().get(name);
  if (!rail) throw new AppError('invalid_request', `No payout rail ${name} is configured.`, { errors: [{ field: 'rail', message: 'not configured' }] });
  return rail;
}
