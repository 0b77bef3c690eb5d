/**
 * Fault injection at a saga's step boundaries, for the harness that crashes and races every money
 * saga (test/api/saga-faults.test.ts). A boundary calls `faultPoint`; with no injector set (always,
 * outside tests) it does nothing. An injector may throw (a crash at that point: the step's state is
 * left as a killed process would leave it) or await something (a racing change let in at that point).
 */

export type FaultBoundary =
  /** The key is written, nothing else yet. */
  | 'beforeLedger'
  /** The ledger has posted; the wallet has written nothing of it. */
  | 'afterLedger'
  /** The commit is built, not written. */
  | 'beforeCommit'
  /** The commit is written; the answer has not reached the client. */
  | 'afterCommit';

export type FaultInjector = (operation: string, boundary: FaultBoundary) => void | Promise<void>;

let injector: FaultInjector | undefined;

/** Sets the process's injector (tests only); answers the function that removes it. */
export function injectFaults(next: FaultInjector): () => void {
  injector = next;
  return () => {
    if (injector === next) injector = undefined;
  };
}

/** A step boundary of `operation`: the injector's crash or race happens here. */
export async function faultPoint(operation: string, boundary: FaultBoundary): Promise<void> {
  if (injector) await injector(operation, boundary);
}
