import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Where the OS hands out ports for outgoing connections and `listen(0)` (Linux's range, else IANA's). */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low !== undefined && high !== undefined && Number.isInteger(low) && Number.isInteger(high)) return [low, high];
  } catch {
    // not Linux
  }
  return [49152, 65535];
}

const bindable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/**
 * A free loopback port outside the ephemeral range, for a platform started in a child process
 * seconds later, or killed and started again on the same ports: a port from `listen(0)` can be
 * taken in between by any other test's outgoing connection or `listen(0)` (CI saw the console
 * port go that way across a restart); one below the range is only taken by asking for it by number.
 */
const handedOut = new Set<number>();

export async function restartablePort(): Promise<number> {
  const [ephemeralLow] = ephemeralRange();
  const low = 20_000;
  const high = Math.max(low + 1000, ephemeralLow) - 1;
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (handedOut.has(port) || !(await bindable(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port between ${low} and ${high}`);
}
