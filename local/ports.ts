import { createServer } from 'node:net';
import { LocalStartError } from './errors';

/** The development OIDC issuer's port unless OIDC_PORT says another. */
export const OIDC_DEFAULT_PORT = 8090;

/** A port the OS says is free on loopback right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * A free loopback port held until `release()`: a port chosen now but listened on later (after the
 * tables and the issuer start) stays ours meanwhile, so parallel platforms never pick the same one.
 */
export function reservePort(): Promise<{ port: number; release: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (typeof address !== 'object' || !address) return reject(new Error('no port'));
      resolve({ port: address.port, release: () => new Promise((done) => server.close(() => done())) });
    });
  });
}

/**
 * The Fetch standard's "bad ports" (https://fetch.spec.whatwg.org/#port-blocking): `fetch` (Node's
 * undici, every browser) refuses to connect to them, so an API listening there could not be called.
 */
export const FETCH_BAD_PORTS: ReadonlySet<number> = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135,
  137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719,
  1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** How the user moves a listener: the environment variable, when there is one, else a generic hint. */
const moveHint = (envVar: string | undefined) => (envVar ? `set ${envVar} to another port` : 'choose another port');

/**
 * Refuses, in one line, a port no client could use: outside 0..65535, or one `fetch` blocks.
 * `envVar` names the variable that moves the listener (PORT, LEDGER_PORT...).
 */
export function assertUsablePort(port: number, what: string, envVar?: string): void {
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new LocalStartError(`${envVar ?? 'The port'} must be a whole number from 0 to 65535 for ${what}; got ${port}.`);
  }
  if (FETCH_BAD_PORTS.has(port)) {
    throw new LocalStartError(`Port ${port} is one that fetch and browsers refuse to connect to, so ${what} cannot be called there; ${moveHint(envVar)}.`);
  }
}

/** Fails with one clear line when something already listens on the port, naming the variable that moves it. */
export function assertPortFree(port: number, what: string, host = '127.0.0.1', envVar?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, port, what, envVar)));
    server.listen(port, host, () => server.close(() => resolve()));
  });
}

/** What a failed `listen` on `port` means to the developer: EADDRINUSE in one line saying what to do; anything else as it is. */
export function listenError(error: NodeJS.ErrnoException, port: number, what: string, envVar?: string): Error {
  return error.code === 'EADDRINUSE' ? new LocalStartError(`Port ${port} is already in use, so ${what} cannot start there; stop the other process or ${moveHint(envVar)}.`) : error;
}
