import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { ledgerFixture, leg } from '../support/ledger';

/**
 * Property: any sequence of postings, reservations, posts of reservations, voids and reversals
 * leaves every account exactly where a small in-memory model of the ledger says, and the model
 * decides every acceptance and refusal too, a sharded account's included (its floor as exact).
 */

type Fixture = Awaited<ReturnType<typeof ledgerFixture>>;
let f: Fixture;
beforeAll(async () => {
  f = await ledgerFixture();
});

type Op =
  | { kind: 'post'; from: number; to: number; amount: number }
  | { kind: 'reserve'; from: number; to: number; amount: number }
  | { kind: 'postPending'; pending: number; fraction: number }
  | { kind: 'void'; pending: number }
  | { kind: 'reverse'; txn: number };

/** The last account is spread over 4 shards: the model does not know, and must not need to. */
const ACCOUNTS = [{ floor: 0 }, { floor: 0 }, { floor: -100 }, { floor: null }, { floor: 0, shards: 4 }] as const;
const account = fc.integer({ min: 0, max: ACCOUNTS.length - 1 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('post' as const), from: account, to: account, amount: fc.integer({ min: 1, max: 150 }) }),
  fc.record({ kind: fc.constant('reserve' as const), from: account, to: account, amount: fc.integer({ min: 1, max: 150 }) }),
  fc.record({ kind: fc.constant('postPending' as const), pending: fc.nat(), fraction: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant('void' as const), pending: fc.nat() }),
  fc.record({ kind: fc.constant('reverse' as const), txn: fc.nat() }),
);

interface ModelAccount {
  floor: number | null;
  posted: number;
  pd: number;
  pc: number;
}

it('agrees with an in-memory model on every balance and every refusal', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 20 }), async (ops) => {
      const source = await f.open({ floor: null });
      const ids: string[] = [];
      const model: ModelAccount[] = [];
      for (const opened of ACCOUNTS) {
        ids.push((await f.open(opened)).id);
        model.push({ floor: opened.floor, posted: 100, pd: 0, pc: 0 });
      }
      for (const id of ids) await f.transfer(source.id, id, 100);

      const fits = (a: ModelAccount, debit: number) => a.floor === null || a.posted - a.pd - debit >= a.floor;
      const pendings: { id: string; from: number; to: number; amount: number; open: boolean }[] = [];
      const txns: { id: string; from: number; to: number; amount: number; reversible: boolean }[] = [];

      for (const o of ops) {
        if (o.kind === 'post' || o.kind === 'reserve') {
          if (o.from === o.to) continue;
          const [from, to] = [model[o.from]!, model[o.to]!];
          const body = { type: 'move', legs: [leg(ids[o.from]!, 'debit', o.amount), leg(ids[o.to]!, 'credit', o.amount)] };
          const accepted = fits(from, o.amount);
          const outcome =
            o.kind === 'post'
              ? await f.service.post(f.consumerId, f.ledgerId, body, f.idem('createPosting', body))
              : await f.service.reserve(f.consumerId, f.ledgerId, body, f.idem('createPending', body));
          expect(outcome.status, JSON.stringify(o)).toBe(accepted ? 201 : 422);
          if (!accepted) continue;
          const id = (JSON.parse(outcome.body) as { id: string }).id;
          if (o.kind === 'post') {
            from.posted -= o.amount;
            to.posted += o.amount;
            txns.push({ id, from: o.from, to: o.to, amount: o.amount, reversible: true });
          } else {
            from.pd += o.amount;
            to.pc += o.amount;
            pendings.push({ id, from: o.from, to: o.to, amount: o.amount, open: true });
          }
        } else if (o.kind === 'postPending' || o.kind === 'void') {
          const p = pendings[o.pending % Math.max(1, pendings.length)];
          if (!p) continue;
          const [from, to] = [model[p.from]!, model[p.to]!];
          if (o.kind === 'void') {
            const outcome = await f.service.voidPending(f.consumerId, f.ledgerId, p.id, f.idem('voidPending', p.id));
            expect(outcome.status).toBe(p.open ? 200 : 409);
            if (p.open) {
              from.pd -= p.amount;
              to.pc -= p.amount;
              p.open = false;
            }
            continue;
          }
          const amount = Math.max(1, Math.floor((p.amount * o.fraction) / 4));
          const body = { type: 'capture', post_pending_id: p.id, legs: [leg(ids[p.from]!, 'debit', amount), leg(ids[p.to]!, 'credit', amount)] };
          const outcome = await f.service.post(f.consumerId, f.ledgerId, body, f.idem('createPosting', body));
          expect(outcome.status).toBe(p.open ? 201 : 409);
          if (p.open) {
            from.pd -= p.amount;
            to.pc -= p.amount;
            from.posted -= amount;
            to.posted += amount;
            p.open = false;
            txns.push({ id: (JSON.parse(outcome.body) as { id: string }).id, from: p.from, to: p.to, amount, reversible: true });
          }
        } else {
          const t = txns[o.txn % Math.max(1, txns.length)];
          if (!t) continue;
          const outcome = await f.service.reverse(f.consumerId, f.ledgerId, t.id, undefined, f.idem('reverseTransaction', t.id));
          const [from, to] = [model[t.from]!, model[t.to]!];
          // The reversal debits the original credit's account, so that account's floor applies.
          const expected = !t.reversible ? 409 : fits(to, t.amount) ? 201 : 422;
          expect(outcome.status, JSON.stringify(o)).toBe(expected);
          if (expected === 201) {
            to.posted -= t.amount;
            from.posted += t.amount;
            t.reversible = false;
          }
        }
      }

      for (let i = 0; i < ids.length; i += 1) {
        const balance = await f.balance(ids[i]!);
        const m = model[i]!;
        expect(balance).toEqual({ posted: m.posted, pending_debits: m.pd, pending_credits: m.pc, available: m.posted - m.pd });
      }
    }),
    { numRuns: 12, seed: 20261121 },
  );
  expect((await f.service.rollup(f.consumerId, f.ledgerId)).balanced).toBe(true);
});
