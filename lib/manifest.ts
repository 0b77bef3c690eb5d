import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnyRoute, RouteCapability } from '../shared/http/route';
import type { WorkerDefinition } from '../shared/workers';
import { repoRoot } from './function';

/**
 * Placement rules that read the manifest: which stack a worker belongs to, which functions need
 * the ledger (and so the VPC), and the environment every function gets.
 */

const packageVersion = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;

/** shared/kernel/config.ts reads these on every function. */
export function baseEnvironment(stage: string): Record<string, string> {
  // Powertools Logger: the share of invocations logged at DEBUG (raise it on a function to look closer: docs/runbook.md).
  return { STAGE: stage, LOG_LEVEL: 'INFO', POWERTOOLS_LOGGER_SAMPLE_RATE: '0', PLATFORM_VERSION: packageVersion };
}

/** Only ledger functions touch LedgerTable, so a worker that does is a ledger worker. */
export function isLedgerWorker(worker: WorkerDefinition): boolean {
  if (worker.tables.ledger === undefined) return false;
  const foreign = [
    worker.tables.wallet !== undefined && 'the wallet table',
    worker.trigger.kind === 'queue' && 'a queue trigger',
    worker.sendsTo?.length && 'queues',
    worker.publishesEvents && 'the event bus',
    worker.callsLedger && 'the ledger API (it is the ledger)',
  ].filter(Boolean);
  if (foreign.length > 0) {
    throw new Error(`Ledger worker ${worker.name} cannot use ${foreign.join(', ')}: those belong to the wallet stack.`);
  }
  return true;
}

/** A route's capabilities, refused where they mean nothing: the ledger's own routes have none. */
export function routeCapabilities(route: AnyRoute): readonly RouteCapability[] {
  const capabilities = route.capabilities ?? [];
  if (route.api === 'ledger' && capabilities.length > 0) {
    throw new Error(`Ledger route ${route.operationId} cannot declare ${capabilities.join(', ')}: those are wallet-side capabilities.`);
  }
  return capabilities;
}

/**
 * Wallet-side routes that call the ledger's private API (`capabilities: ['callsLedger']`), and so
 * run in the ledger's VPC with the ledger client settings. Everything else runs outside the VPC.
 */
export const routeCallsLedger = (route: AnyRoute): boolean => routeCapabilities(route).includes('callsLedger');

/** Routes that mint wallet tokens (`capabilities: ['signsTokens']`): only they get kms:Sign. */
export const routeSignsTokens = (route: AnyRoute): boolean => routeCapabilities(route).includes('signsTokens');
