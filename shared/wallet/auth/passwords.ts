import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { AppError } from '../../kernel/errors';

/**
 * Staff passwords: scrypt hashes with a per-account salt in a self-describing string (the
 * parameters can be raised later without a migration), and the per-process bound on how much
 * scrypt work runs at once.
 *
 * Why a bound: one verification is ~90 ms of CPU and 32 MiB; a flood of logins would otherwise
 * queue hundreds of them and delay every real login by seconds. At most MAX_CONCURRENT run at
 * once and at most MAX_WAITING wait (briefly) for a slot; beyond that a login is answered at once
 * with 429 rate_limited and Retry-After.
 *
 * Why unknown emails do no scrypt: their verification exists only so that the answer takes as long
 * as a wrong password would. A wait drawn from the durations of recent real verifications costs no
 * CPU and takes as long, so a flood of unknown emails cannot starve real logins; and it is refused
 * exactly when a real verification would be (the lane is full), so 429s tell nothing either.
 */

/** N = 2^15, r = 8: about 90 ms and 32 MiB on the development machine (OWASP's scrypt floor is 2^17 with r = 8, p = 1 at a higher memory cost; raise N when Lambda memory allows). */
export const SCRYPT_PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
/** Refuse stored parameters that would make one login cost more than this much memory. */
const MAX_SCRYPT_MEMORY = 256 * 1024 * 1024;

const scrypt = (password: string, salt: Buffer, keyLength: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCallback(password.normalize('NFKC'), salt, keyLength, { ...options, maxmem: MAX_SCRYPT_MEMORY }, (error, key) => (error ? reject(error) : resolve(key))),
  );

/** `scrypt$N=32768,r=8,p=1$<salt base64>$<hash base64>` */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LENGTH, SCRYPT_PARAMS);
  const { N, r, p } = SCRYPT_PARAMS;
  return `scrypt$N=${N},r=${r},p=${p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** Unbounded: callers on a request path go through PasswordWork. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = /^scrypt\$N=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/.exec(stored);
  if (!match) return false;
  const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (N > 2 ** 20 || r > 32 || p > 16 || 128 * N * r > MAX_SCRYPT_MEMORY) return false;
  const expected = Buffer.from(match[5]!, 'base64');
  if (expected.length < 16) return false;
  const actual = await scrypt(password, Buffer.from(match[4]!, 'base64'), expected.length, { N, r, p });
  return timingSafeEqual(actual, expected);
}

/** Same parameters as a real hash, so a calibration costs what a verification costs; never matches. */
const DUMMY_HASH = `scrypt$N=${SCRYPT_PARAMS.N},r=${SCRYPT_PARAMS.r},p=${SCRYPT_PARAMS.p}$${randomBytes(16).toString('base64')}$${randomBytes(KEY_LENGTH).toString('base64')}`;

/** Two verifications at once leave two of libuv's four threads for everything else. */
export const MAX_CONCURRENT_VERIFICATIONS = 2;
/** A handful may wait for a slot: the lockout lets one account start at most five at once. */
export const MAX_WAITING_VERIFICATIONS = 16;
const MAX_WAIT_MS = 2_000;
const RECENT_DURATIONS = 32;

export const busy = () => new AppError('rate_limited', 'Too many logins at once; retry shortly.', { headers: { 'retry-after': '1' } });

export class PasswordWork {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly recentMs: number[] = [];

  constructor(
    private readonly maxConcurrent = MAX_CONCURRENT_VERIFICATIONS,
    private readonly maxWaiting = MAX_WAITING_VERIFICATIONS,
  ) {}

  /** Verifies under the bound. Refuses: rate_limited (the lane is full, or no slot came in time). */
  async verify(password: string, stored: string): Promise<boolean> {
    // Measured from arrival, queueing included: an imitation then takes what a real answer takes now.
    const started = performance.now();
    await this.acquire();
    try {
      return await verifyPassword(password, stored);
    } finally {
      this.record(performance.now() - started);
      this.release();
    }
  }

  /**
   * Takes as long as a verification of a wrong password, without the CPU: for an unknown email.
   * Refuses: rate_limited exactly when `verify` would.
   */
  async imitate(password: string): Promise<void> {
    if (this.recentMs.length === 0) {
      // Nothing measured yet in this process: one real verification calibrates the rest.
      await this.verify(password, DUMMY_HASH);
      return;
    }
    if (this.full()) throw busy();
    const sample = this.recentMs[Math.floor(Math.random() * this.recentMs.length)]!;
    // eslint-disable-next-line no-restricted-syntax -- a pause as long as a verification, not a retry.
    await new Promise((resolve) => setTimeout(resolve, sample));
  }

  private full(): boolean {
    return this.running >= this.maxConcurrent && this.waiting.length >= this.maxWaiting;
  }

  private async acquire(): Promise<void> {
    if (this.running < this.maxConcurrent) {
      this.running += 1;
      return;
    }
    if (this.waiting.length >= this.maxWaiting) throw busy();
    await new Promise<void>((resolve, reject) => {
      const grant = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const index = this.waiting.indexOf(grant);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(busy());
      }, MAX_WAIT_MS);
      this.waiting.push(grant);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    // The slot passes straight to the next waiter; only when none waits does it free up.
    if (next) next();
    else this.running -= 1;
  }

  private record(ms: number): void {
    this.recentMs.push(ms);
    if (this.recentMs.length > RECENT_DURATIONS) this.recentMs.shift();
  }
}

/** This process's lane (a Lambda container serves one request at a time; the embedded platform many). */
export const processPasswordWork = new PasswordWork();
