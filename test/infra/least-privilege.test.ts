import { beforeAll, describe, expect, it } from 'vitest';
import * as z from '../../shared/kernel/zod';
import type { AnyRoute } from '../../shared/http/route';
import { actionsOf, functionsOf, methodsOf, synthesize, type FoundFunction, type Synthesized } from './support';

/**
 * Least privilege over the synthesized templates (what CloudFormation would receive): a GET
 * route's function holds no action that changes a table, and ledger access (the ledger client's
 * secret, its settings, a place in the ledger's VPC) only when its own service reads the ledger.
 * What a credential check must record (an API key's last use, a support engineer's access, an IdP
 * user's first contact) leaves through queues: shared/wallet/auth/credential-queues.ts.
 */

/**
 * The GET routes whose own service reads the ledger, and what it reads there: the only GET
 * functions that may hold ledger access. A new one is a reviewed change of this list.
 */
const READS_THE_LEDGER: Record<string, string> = {
  getTenantHealth: "the tenant ledger's rollup",
  getLedgerSummary: "the tenant ledger's balances by owner, purpose and commodity",
  listPlatformTransactions: "every tenant ledger's transactions",
  getUserBalances: "the user's cash account",
  listWalletTransactions: "the ledger's transaction listings of the tenant or the user's account",
  getWalletTransaction: "one transaction of the tenant's ledger, with its legs",
  getUserRewards: "the user's points account and its balance",
};

/** DynamoDB actions that change data (or could: any wildcard), and a bare `*`. */
const changesData = (action: string): boolean =>
  action === '*' ||
  (action.startsWith('dynamodb:') &&
    (action.includes('*') || /^dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems|PartiQL(Insert|Update|Delete)|ImportTable|RestoreTable.*|UpdateTable|DeleteTable|CreateTable)$/.test(action)));

/** Why a wallet-side function can reach the ledger, if it can. */
function ledgerAccess(found: FoundFunction): string[] {
  return [
    ...(found.fn.Properties?.VpcConfig !== undefined ? ['runs in the ledger VPC'] : []),
    ...Object.keys(found.env).filter((name) => name.startsWith('LEDGER_')),
    ...(actionsOf(found).has('secretsmanager:GetSecretValue') ? ['reads the ledger client secret'] : []),
  ];
}

/** Every GET route function of both stacks that holds more than it needs, with what it holds. */
function leastPrivilegeViolations(synth: Synthesized): string[] {
  const violations: string[] = [];
  for (const [side, stack] of [['ledger', synth.stacks.ledger], ['wallet', synth.stacks.wallet]] as const) {
    const byResource = new Map(functionsOf(stack).map((found) => [found.fn, found]));
    for (const method of methodsOf(stack)) {
      if (method.httpMethod !== 'GET' || !method.operationName || !method.function) continue;
      const found = byResource.get(method.function)!;
      const writes = [...actionsOf(found).keys()].filter(changesData);
      if (writes.length > 0) violations.push(`${method.operationName} (GET ${method.path}) may change data: ${writes.sort().join(', ')}`);
      // The ledger's own routes are the ledger; a wallet-side read reaches it only for its own service.
      const access = side === 'wallet' ? ledgerAccess(found) : [];
      if (access.length > 0 && !(method.operationName in READS_THE_LEDGER)) {
        violations.push(`${method.operationName} (GET ${method.path}) holds ledger access its service does not need: ${access.join(', ')}`);
      }
    }
  }
  return violations;
}

describe('GET route functions of the real manifest', () => {
  let synth: Synthesized;
  beforeAll(() => {
    synth = synthesize();
  });

  it('hold no action that changes a table, and ledger access only where their service reads the ledger', () => {
    expect(leastPrivilegeViolations(synth)).toEqual([]);
  });

  it('include the ledger readers, each with the ledger client (so the list above is not stale)', () => {
    const byResource = new Map(functionsOf(synth.stacks.wallet).map((found) => [found.fn, found]));
    const readers = methodsOf(synth.stacks.wallet)
      .filter((method) => method.httpMethod === 'GET' && method.operationName && method.function && ledgerAccess(byResource.get(method.function)!).length > 0)
      .map((method) => method.operationName!);
    expect(readers.sort()).toEqual(Object.keys(READS_THE_LEDGER).sort());
  });
});

describe('the least-privilege check', () => {
  const empty = z.object({});
  const route = (operationId: string, path: string, extra: Partial<AnyRoute>): AnyRoute => ({
    operationId,
    method: 'GET',
    path,
    api: 'wallet',
    handler: `synthetic/${operationId}`,
    summary: operationId,
    tags: ['probe'],
    access: 'public',
    request: {},
    response: { status: 200, body: empty, description: 'ok' },
    errors: [],
    tables: { wallet: 'RO' },
    ...extra,
  });

  it('fails a GET function that holds a write action or ledger access its service does not need, and passes a reader', () => {
    const synth = synthesize(
      {
        routes: [
          route('probeReads', '/v1/probe/reads', {}),
          route('probeWrites', '/v1/probe/writes', { tables: { wallet: 'RW' } }),
          route('probeLedger', '/v1/probe/ledger', { capabilities: ['callsLedger'] }),
          route('getUserBalances', '/v1/probe/balances', { capabilities: ['callsLedger'] }),
        ],
        workers: [],
        queues: [],
      },
      'probe',
    );

    const violations = leastPrivilegeViolations(synth);

    expect([...violations].sort()).toEqual([
      expect.stringMatching(/^probeLedger \(GET \/v1\/probe\/ledger\) holds ledger access its service does not need: runs in the ledger VPC, LEDGER_API_URL/),
      expect.stringMatching(/^probeWrites \(GET \/v1\/probe\/writes\) may change data: dynamodb:BatchWriteItem, dynamodb:DeleteItem, dynamodb:PutItem, dynamodb:UpdateItem$/),
    ]);
    expect(violations.join('\n')).not.toMatch(/probeReads|getUserBalances/);
  });
});
