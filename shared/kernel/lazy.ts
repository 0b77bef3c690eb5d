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
