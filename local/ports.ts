import { createServer } from 'node:net';
import { LocalStartError } from './errors';

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

/** Fails with one clear line when something already listens on the port. */
export function assertPortFree(port: number, what: string, host = '127.0.0.1'): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new LocalStartError(`Port ${port} is already in use, so ${what} cannot start there; stop the other process or choose another port.`)
          : error,
      );
    });
    server.listen(port, host, () => server.close(() => resolve()));
  });
}
