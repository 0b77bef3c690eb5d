import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../local/platform';
import { uuidv7 } from '../../shared/kernel/ids';
import { LOCKOUT_SECONDS } from '../../shared/wallet/auth/staff';
import { staffAccount } from '../support/credentials';
import { call, startTestPlatform } from '../support/platform';

/**
 * Credential attacks on staff login, as an attacker runs them: many guesses at once on one
 * account, and a flood of logins for emails that do not exist while a real person logs in.
 */

let platform: Platform;
beforeAll(async () => {
  platform = await startTestPlatform({ workers: [] });
});
afterAll(() => platform?.stop());

const login = (email: string, password: string) => call(platform.urls.public, 'POST', '/v1/auth/staff_sessions', { body: { email, password } });

/** 401 and 201 are answers from a verified password; 429 was refused before any verification. */
function tally(results: { status: number }[]) {
  const count = (status: number) => results.filter((r) => r.status === status).length;
  return { verified: count(401) + count(201), refused: count(429), other: results.length - count(401) - count(201) - count(429) };
}

describe('the login lockout under concurrency', () => {
  it.each([
    ['last', 39],
    ['first', 0],
  ])('verifies at most 5 wrong guesses of 40 concurrent ones with the correct one %s: a success inside the burst reopens nothing', async (_, correctAt) => {
    const staff = await staffAccount(platform, { role: 'platform' });
    const guesses = Array.from({ length: 40 }, (_, i) => (i === correctAt ? staff.password : `wrong guess number ${i}`));

    const results = await Promise.all(guesses.map((password) => login(staff.email, password)));

    // Five attempts are verified in the window. One more only when the correct password was
    // verified before any other attempt was counted (a busy machine may serve it alone, first):
    // a success ends the run of failures before it, never one that was counted after it.
    const wrongVerified = results.filter((r, i) => i !== correctAt && r.status === 401).length;
    const succeeded = results[correctAt]!.status === 201;
    expect(wrongVerified).toBeLessThanOrEqual(5);
    expect(tally(results)).toEqual({ verified: wrongVerified + (succeeded ? 1 : 0), refused: 40 - wrongVerified - (succeeded ? 1 : 0), other: 0 });
    expect(wrongVerified + (succeeded ? 1 : 0)).toBeGreaterThanOrEqual(5);
    // Whichever it was, the window is full now: even the right password is held.
    expect((await login(staff.email, staff.password)).status).toBe(429);
    for (const refused of results.filter((r) => r.status === 429)) {
      expect(refused.headers.get('content-type')).toBe('application/problem+json');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });

  it('verifies exactly 5 of 100 concurrent wrong guesses and then holds the account even for the right password', async () => {
    const staff = await staffAccount(platform, { role: 'platform' });

    const startedAt = Date.now();
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => login(staff.email, `wrong guess number ${i}`)));

    expect(tally(results)).toEqual({ verified: 5, refused: 95, other: 0 });
    const held = await login(staff.email, staff.password);
    expect(held.status).toBe(429);
    // Held for LOCKOUT_SECONDS from the fifth failure, which came after startedAt: what is left is
    // the full hold less the time since then, however long the burst took on this machine.
    const since = Math.ceil((Date.now() - startedAt) / 1000);
    const retryAfter = Number(held.headers.get('retry-after'));
    expect(retryAfter).toBeLessThanOrEqual(LOCKOUT_SECONDS);
    expect(retryAfter).toBeGreaterThanOrEqual(LOCKOUT_SECONDS - since - 1);
  });
});

describe('a flood of logins for unknown emails', () => {
  it('leaves a real login answered 201: unknown emails cost no verification of the login lane', async () => {
    const staff = await staffAccount(platform, { role: 'platform' });
    // Warm the path once, as any running platform is.
    expect((await login(staff.email, staff.password)).status).toBe(201);

    const flood = Array.from({ length: 100 }, () => login(`nobody-${uuidv7()}@example.test`, 'not a password at all'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const real = await login(staff.email, staff.password);
    const flooded = await Promise.all(flood);

    // A flood that took the verification lane (real password hashing, two at a time) would refuse
    // the real login (429): its status says so on any machine, where a time would not.
    expect(real.status, real.text).toBe(201);
    // Unknown emails are answered as a wrong password would be, or refused as a full lane would be.
    expect(flooded.every((r) => r.status === 401 || r.status === 429)).toBe(true);
  });
});
