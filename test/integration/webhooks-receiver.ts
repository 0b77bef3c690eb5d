import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real webhook receiver on loopback (127.0.0.1, a free port) for the webhook tests. Each path is
 * its own receiver: it answers from a script of statuses, each with headers if given (then
 * `thenStatus`, default 200), after `delayMs` if given, or hangs without answering, and records
 * every request with its raw body and how many of the path's requests were open when it came. Calling `route` again for a path changes how it answers from then on.
 */

/** A status, or a status with response headers (Retry-After, Location) and a body (default `accepted` / `not now`). */
export type ScriptedAnswer = number | { status: number; headers?: Record<string, string>; body?: string };

export interface ReceivedRequest {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Requests to this path unanswered when it arrived, itself included. */
  inFlight: number;
}

interface Behaviour {
  script: ScriptedAnswer[];
  thenStatus: number;
  hang: boolean;
  delayMs: number;
}

export interface Receiver {
  /** `http://127.0.0.1:<port>` */
  base: string;
  port: number;
  /** A receiver path answering `script` in order, then `thenStatus`. */
  route(path: string, options?: { script?: ScriptedAnswer[]; thenStatus?: number; hang?: boolean; delayMs?: number }): string;
  requests(path: string): ReceivedRequest[];
  all(): ReceivedRequest[];
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const behaviours = new Map<string, Behaviour>();
  const received: ReceivedRequest[] = [];
  const open = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const inFlight = (open.get(path) ?? 0) + 1;
      open.set(path, inFlight);
      received.push({ path, method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), inFlight });
      const behaviour = behaviours.get(path);
      if (behaviour?.hang) return;
      const answer = behaviour ? (behaviour.script.shift() ?? behaviour.thenStatus) : 404;
      const { status, headers = {}, body } = typeof answer === 'number' ? { status: answer, body: undefined } : answer;
      setTimeout(() => {
        open.set(path, (open.get(path) ?? 1) - 1);
        res.writeHead(status, { 'content-type': 'text/plain', ...headers });
        res.end(body ?? (status >= 200 && status < 300 ? 'accepted' : 'not now'));
      }, behaviour?.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    port,
    route(path, options = {}) {
      behaviours.set(path, { script: [...(options.script ?? [])], thenStatus: options.thenStatus ?? 200, hang: options.hang ?? false, delayMs: options.delayMs ?? 0 });
      return `${base}${path}`;
    },
    requests: (path) => received.filter((r) => r.path === path),
    all: () => [...received],
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
