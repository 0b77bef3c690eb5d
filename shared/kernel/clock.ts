/**
 * The time source. Services take a Clock instead of calling Date.now(), so tests move time
 * (hold expiry, webhook backoff, key expiry) instead of sleeping.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

let installed: Clock | undefined;

/**
 * The embedded platform installs its clock here, so a test moves time for every handler and worker
 * of the platform at once (hold expiry, key expiry, backoff). Nothing installs one in AWS.
 */
export function installPlatformClock(clock: Clock | undefined): void {
  installed = clock;
}

/** The clock the Lambda runtimes use: the installed one, else the system's. */
export const platformClock: Clock = { now: () => (installed ?? systemClock).now() };

/** A clock tests can set and advance. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: Date | string = '2026-01-01T00:00:00.000Z') {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(to: Date | string): void {
    this.current = new Date(to).getTime();
  }
}

export const epochSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);
