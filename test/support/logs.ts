import { vi } from 'vitest';

/**
 * The JSON lines written to stdout and stderr (Powertools writes errors there) while `act` runs,
 * taken off the streams: they are the test's to assert, not the run's output.
 */
export async function linesWritten(act: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const written: string[] = [];
  const spies = [process.stdout, process.stderr].map((stream) =>
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
      written.push(String(chunk));
      // A writer waiting for the write's callback (Node's console) gets it, as from the stream.
      const done = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
      if (done) process.nextTick(done);
      return true;
    }),
  );
  try {
    await act();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return written
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
