/**
 * Billing dates (docs/subscriptions.md). Period n starts at the anchor plus n intervals, counted
 * from the anchor each time (never from the previous date), so a monthly plan anchored on the
 * 31st bills on the 31st, the last day of shorter months (Feb 28 or 29, Apr 30), and the 31st
 * again: the day of month clamps to the month's end. Yearly plans anchored on Feb 29 bill on
 * Feb 28 in other years. Weekly is exactly 7 days. Times of day are kept (UTC).
 */

export type Interval = 'weekly' | 'monthly' | 'yearly';

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month + 1, 0)).getUTCDate();

export function periodStart(anchor: string, interval: Interval, n: number): string {
  const at = new Date(anchor);
  if (interval === 'weekly') return new Date(at.getTime() + n * 7 * 86_400_000).toISOString();
  const months = interval === 'monthly' ? n : 12 * n;
  const total = at.getUTCMonth() + months;
  const year = at.getUTCFullYear() + Math.floor(total / 12);
  const month = ((total % 12) + 12) % 12;
  const day = Math.min(at.getUTCDate(), daysIn(year, month));
  return new Date(Date.UTC(year, month, day, at.getUTCHours(), at.getUTCMinutes(), at.getUTCSeconds(), at.getUTCMilliseconds())).toISOString();
}

/** Dunning: the tries of one period's charge after the first fails, as delays from the failure. */
export const DUNNING_DELAYS_MS = [1, 2, 4].map((days) => days * 86_400_000);
/** The first try and its retries: 4 tries over 7 days, then paused (dunning_exhausted). */
export const MAX_TRIES = DUNNING_DELAYS_MS.length + 1;
