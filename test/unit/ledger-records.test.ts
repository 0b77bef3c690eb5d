import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pendingAttributes, pendingJson, toPending, toTransaction, transactionAttributes, transactionJson } from '../../shared/ledger/records';
import type { Pending, Transaction } from '../../shared/ledger/schemas';

/**
 * Property: a transaction or pending rendered from its stored item (after DynamoDB's marshalling,
 * which keeps no order in a map) is byte for byte the JSON first answered, whatever the metadata's
 * key order. Idempotent replays rely on it (spec ledger rule 4).
 */

const uuid = fc.uuid();
const label = fc.stringMatching(/^[a-z][a-z0-9_]{0,12}$/);
// Request validation drops `__proto__`; a `constructor` key is refused by the marshaller itself.
const metadataKey = fc.string({ minLength: 1, maxLength: 12 }).filter((key) => key !== '__proto__' && key !== 'constructor');
const metadata = fc.dictionary(metadataKey, fc.string({ maxLength: 20 }), { maxKeys: 6 });
const time = fc.integer({ min: 1_700_000_000_000, max: 1_900_000_000_000 }).map((ms) => new Date(ms).toISOString());
const leg = fc.record({
  account_id: uuid,
  owner_type: label,
  owner_id: uuid,
  purpose: label,
  direction: fc.constantFrom('debit' as const, 'credit' as const),
  amount: fc.integer({ min: 1, max: 2 ** 45 }),
  commodity: fc.stringMatching(/^[A-Z][A-Z0-9_]{1,15}$/),
});

const transaction: fc.Arbitrary<Transaction> = fc.record({
  id: uuid,
  ledger_id: uuid,
  type: label,
  status: fc.constant('posted' as const),
  reference_id: fc.option(uuid, { nil: null }),
  metadata,
  exchange_id: fc.option(uuid, { nil: null }),
  reverses_txn_id: fc.option(uuid, { nil: null }),
  reversed_by: fc.constant(null),
  pending_id: fc.option(uuid, { nil: null }),
  legs: fc.array(leg, { minLength: 2, maxLength: 32 }),
  effective_at: time,
  created_at: time,
});

const pending: fc.Arbitrary<Pending> = fc.record({
  id: uuid,
  ledger_id: uuid,
  type: label,
  status: fc.constantFrom('pending' as const, 'posted' as const, 'voided' as const, 'expired' as const),
  reference_id: fc.option(uuid, { nil: null }),
  metadata,
  legs: fc.array(leg, { minLength: 2, maxLength: 32 }),
  expires_at: fc.option(time, { nil: null }),
  transaction_id: fc.option(uuid, { nil: null }),
  created_at: time,
  resolved_at: fc.option(time, { nil: null }),
});

/** What DynamoDB gives back: marshalled, map keys in another order, unmarshalled. */
function stored(item: Record<string, unknown>): Record<string, unknown> {
  const wire = marshall(item, { removeUndefinedValues: true }) as Record<string, { M?: Record<string, unknown> }>;
  const shuffled = Object.fromEntries(Object.entries(wire).reverse().map(([name, value]) => [name, value.M ? { M: Object.fromEntries(Object.entries(value.M).reverse()) } : value]));
  return unmarshall(shuffled as never);
}

describe('stored transactions and pendings', () => {
  it('render the JSON first answered, from the stored item', () => {
    fc.assert(
      fc.property(transaction, (t) => {
        expect(transactionJson(toTransaction(stored(transactionAttributes(t))))).toBe(transactionJson(t));
        expect(JSON.parse(transactionJson(t))).toEqual(t);
      }),
      { numRuns: 200 },
    );
    fc.assert(
      fc.property(pending, (p) => {
        expect(pendingJson(toPending(stored(pendingAttributes(p))))).toBe(pendingJson(p));
        expect(JSON.parse(pendingJson(p))).toEqual(p);
      }),
      { numRuns: 200 },
    );
  });

  it('store each leg as one string and leave absent links out', () => {
    const t = fc.sample(transaction, { numRuns: 1, seed: 7 })[0]!;
    const item = transactionAttributes({ ...t, reference_id: null, exchange_id: null, reverses_txn_id: null, pending_id: null, metadata: {} });
    expect(Object.keys(item).sort()).toEqual(['created_at', 'effective_at', 'entity', 'id', 'ledger_id', 'legs', 'type']);
    expect((item.legs as unknown[]).every((stored) => typeof stored === 'string')).toBe(true);
  });
});
