import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnyRoute } from '../shared/http/route';
import type { WorkerDefinition } from '../shared/workers';
import { repoRoot } from './function';

/**
 * Placement rules that read the manifest: which stack a worker belongs to, which functions need
 * the ledger (and so the VPC), and the environment every function gets.
 */

const packageVersion = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;

/** shared/config.ts reads these on every function. */
export function baseEnvironment(stage: string): Record<string, string> {
  return { STAGE: stage, LOG_LEVEL: 'INFO', PLATFORM_VERSION: packageVersion };
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

/**
 * Wallet-side functions that call the ledger's private API, and so run in the ledger's VPC.
 * Routes carry no `callsLedger` flag yet: every wallet-API route moves or reads money through the
 * ledger (spec part 1: "every money path of the wallet API posts into the ledger"), and console
 * routes create ledgers and read ledger health (spec part 4 items 11 and 12); auth routes never do.
 * Probes ride along: separating them would cost a role for nothing.
 */
export function routeCallsLedger(route: AnyRoute): boolean {
  const flag = (route as AnyRoute & { callsLedger?: boolean }).callsLedger;
  if (flag !== undefined) return flag;
  return route.api === 'wallet' || route.api === 'console';
}
