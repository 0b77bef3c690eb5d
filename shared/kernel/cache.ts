/**
 * What one process remembers for a while: positive results only (a verified credential, a found
 * record), each until its own expiry, the oldest going first when the cache is full (a Map iterates
 * in insertion order). Callers pass the time, so a test's clock moves it.
 */
export class ExpiringCache<T> {
  private readonly entries = new Map<string, { value: T; untilMs: number }>();

  constructor(private readonly options: { ttlMs: number; maxEntries: number }) {}

  get(key: string, nowMs: number): T | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.untilMs > nowMs) return entry.value;
    if (entry) this.entries.delete(key);
    return undefined;
  }

  /** Remembers `value` for the TTL, or until `notAfterMs` when that comes first (a token's expiry). */
  set(key: string, value: T, nowMs: number, notAfterMs = Infinity): void {
    this.entries.delete(key);
    if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, untilMs: Math.min(nowMs + this.options.ttlMs, notAfterMs) });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
