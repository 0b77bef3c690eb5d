/**
 * `load` once per container; a failure is not remembered (the next caller tries again), so a
 * KMS or Secrets Manager hiccup during one request does not break the container for good.
 */
export function retryingOnce<T>(load: () => Promise<T>): (() => Promise<T>) & { forget(): void } {
  let pending: Promise<T> | undefined;
  const get = () =>
    (pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    }));
  return Object.assign(get, { forget: () => (pending = undefined) });
}

/**
 * `build` on the first call, once; every call answers the same value. For what a module would
 * otherwise build at import and only some requests use (zod schemas: building them is most of what
 * a function's own code costs at a cold start, docs/performance.md).
 */
export function onFirstUse<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}
