/** Waiting in real time, for what a test cannot await directly. */

/** Polls `check` (real time) until it holds. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 15_000, label = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${label} not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Lets `ms` of real time pass (objects made after it get a later created_at). */
export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
