import { config } from '../../kernel/config';
import { queueTransport } from '../../aws/queue';
import { CURRENCY_MINOR_UNITS } from '../tenancy/currencies';
import type { ProcessorRegistry, TopupProcessor } from './processors';
import { createSandboxProcessor, SANDBOX_GATEWAY } from './sandbox';

/**
 * The processors this deployment offers, built once per container on first use from the
 * configuration: the sandbox when SANDBOX_PROCESSOR_SECRET is set. A real processor is added here
 * with its own settings (docs/topups.md "Adding a processor").
 */

let registry: ProcessorRegistry | undefined;

export function topupProcessors(): ProcessorRegistry {
  if (registry) return registry;
  const processors: TopupProcessor[] = [];
  if (config.SANDBOX_PROCESSOR_SECRET) {
    processors.push(
      createSandboxProcessor({
        secret: config.SANDBOX_PROCESSOR_SECRET,
        // Resolved per send: the embedded platform installs its queue driver before handlers run.
        transport: { send: (queue, body, options) => queueTransport().send(queue, body, options) },
        currencies: Object.keys(CURRENCY_MINOR_UNITS),
      }),
    );
  }
  registry = new Map(processors.map((processor) => [processor.name, processor]));
  return registry;
}

export const DEFAULT_GATEWAY = SANDBOX_GATEWAY;
