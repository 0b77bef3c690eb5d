import { vi } from 'vitest';

/** The JSON lines written to stdout and stderr (Powertools writes errors there) while `act` runs. */
export async function linesWritten(act: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const written: string[] = [];
  const spies = [process.stdout, process.stderr].map((stream) => {
    const write = stream.write.bind(stream);
    return vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
      written.push(String(chunk));
      return write(chunk, ...(rest as []));
    });
  });
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
