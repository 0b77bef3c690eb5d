/**
 * The typed ledger contract, held by `npm run typecheck` (a step of `npm test`): each line under a
 * `@ts-expect-error` is a posting the compiler must refuse. Should the ledger client's methods
 * ever take an untyped object again, the error disappears, the directive is unused (TS2578) and the
 * typecheck fails. Nothing here runs: vitest reads only `*.test.ts`.
 */
import type { LedgerOperations } from '../../shared/ledger-client/loader';
import type { LegRequest } from '../../shared/ledger-client/contract';

const ledgerId = '0190f5a0-0000-7000-8000-000000000000';
const from = '0190f5a0-0000-7000-8000-000000000001';
const to = '0190f5a0-0000-7000-8000-000000000002';
const legs: LegRequest[] = [
  { account_id: from, direction: 'debit', amount: 5, commodity: 'USD' },
  { account_id: to, direction: 'credit', amount: 5, commodity: 'USD' },
];

export async function misspeltPostings(ledger: LedgerOperations): Promise<void> {
  await ledger.post(ledgerId, { type: 'transfer', legs }, 'key');

  await ledger.post(ledgerId, {
    type: 'transfer',
    legs: [
      { account_id: from, direction: 'debit', amount: 5, commodity: 'USD' },
      // @ts-expect-error a misspelt leg field: `acount_id`
      { acount_id: to, direction: 'credit', amount: 5, commodity: 'USD' },
      // @ts-expect-error a misspelt leg field: `comodity`
      { account_id: to, direction: 'credit', amount: 5, comodity: 'USD' },
      // @ts-expect-error a misspelt direction: `debet`
      { account_id: to, direction: 'debet', amount: 5, commodity: 'USD' },
      // @ts-expect-error an amount as text, not integer minor units
      { account_id: to, direction: 'credit', amount: '5', commodity: 'USD' },
    ],
  }, 'key');

  // @ts-expect-error a misspelt posting field: `referance_id`
  await ledger.post(ledgerId, { type: 'transfer', referance_id: from, legs }, 'key');
  // @ts-expect-error a posting without its type
  await ledger.post(ledgerId, { legs }, 'key');
  // @ts-expect-error a reservation's misspelt field: `expires`
  await ledger.reserve(ledgerId, { type: 'payment', legs, expires: '2030-01-01T00:00:00.000Z' }, 'key');
  // @ts-expect-error a misspelt account patch field: `flor`
  await ledger.updateAccount(ledgerId, from, { flor: 0 });
}
