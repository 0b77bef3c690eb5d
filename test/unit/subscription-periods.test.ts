import { describe, expect, it } from 'vitest';
import { chargeKey } from '../../shared/wallet/subscriptions/billing';
import { periodStart } from '../../shared/wallet/subscriptions/periods';

/** Billing dates count from the anchor each time, clamping the day of month to the month's end. */
describe('periodStart', () => {
  it('clamps a monthly plan anchored on the 31st to each month\'s last day, and comes back to the 31st', () => {
    const anchor = '2026-01-31T10:00:00.000Z';
    expect([0, 1, 2, 3, 4].map((n) => periodStart(anchor, 'monthly', n))).toEqual([
      '2026-01-31T10:00:00.000Z',
      '2026-02-28T10:00:00.000Z',
      '2026-03-31T10:00:00.000Z',
      '2026-04-30T10:00:00.000Z',
      '2026-05-31T10:00:00.000Z',
    ]);
    expect(periodStart('2027-12-31T00:00:00.000Z', 'monthly', 2)).toBe('2028-02-29T00:00:00.000Z');
  });

  it('bills a yearly plan anchored on Feb 29 on Feb 28 in other years, and weekly every 7 days', () => {
    expect([1, 4].map((n) => periodStart('2028-02-29T12:00:00.000Z', 'yearly', n))).toEqual(['2029-02-28T12:00:00.000Z', '2032-02-29T12:00:00.000Z']);
    expect(periodStart('2026-03-28T23:30:00.000Z', 'weekly', 2)).toBe('2026-04-11T23:30:00.000Z');
  });
});

/** A try's ledger key: never one a try before it had, and unchanged for charges posted before resumes counted. */
describe('chargeKey', () => {
  it('keeps the first format while a subscription was never resumed, and carries the resume after one', () => {
    const record = { tenant_id: 't1', id: 's1' };
    expect(chargeKey(record, 3, 1)).toBe('wallet:t1:s1:period-3-try-1');
    expect(chargeKey({ ...record, resumes: 0 }, 3, 1)).toBe('wallet:t1:s1:period-3-try-1');
    expect(chargeKey({ ...record, resumes: 2 }, 3, 0)).toBe('wallet:t1:s1:period-3-resume-2-try-0');
    const keys = [undefined, 1, 2].flatMap((resumes) => [0, 1, 2, 3].map((attempt) => chargeKey({ ...record, resumes }, 3, attempt)));
    expect(new Set(keys).size).toBe(keys.length);
  });
});
