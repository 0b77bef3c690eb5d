import type { Agent as HttpAgent, ClientRequest, IncomingHttpHeaders, IncomingMessage, RequestOptions } from 'node:http';

/**
 * HTTP requests a function sends (to the ledger and its token endpoint; AWS calls go through the SDK clients): node:http(s) over keep-alive agents.
 * Not the global fetch: on Node 20 an exchange through undici's fetch (WHATWG streams, a body
 * stream per response, an AbortSignal timer per call) costs about four times the CPU of the same
 * exchange through http.request, measured on loopback (docs/performance.md), and a transfer makes
 * one to the ledger. node:https (with tls and net) is loaded on the first request, not at import:
 * a tenth of a Lambda's cold import for a module every request path needs only once it calls out.
 */

interface Transport {
  request(options: RequestOptions, onResponse: (response: IncomingMessage) => void): ClientRequest;
  agent: HttpAgent;
}

const transports = new Map<string, Transport>();

/** Keep-alive connections, as the SDK keeps them: a TLS handshake per call would double a call's latency. */
function transportFor(protocol: string): Transport {
  let transport = transports.get(protocol);
  if (!transport) {
    // Through getBuiltinModule, never an ES import (docs/decisions.md, "node:http and node:util").
    const module = protocol === 'https:' ? process.getBuiltinModule('node:https') : process.getBuiltinModule('node:http');
    transport = { request: module.request, agent: new module.Agent({ keepAlive: true, maxSockets: 50 }) };
    transports.set(protocol, transport);
  }
  return transport;
}

export interface OutboundRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** From connecting to the last byte of the answer. */
  timeoutMs: number;
}

export interface OutboundResponse {
  status: number;
  /** Lower-cased names, as node:http gives them. */
  headers: IncomingHttpHeaders;
  text: string;
}

/** One exchange; what a client needs of a transport (tests pass their own). */
export type HttpSend = (request: OutboundRequest) => Promise<OutboundResponse>;

/**
 * One exchange over a keep-alive connection: the status and the whole body as text. Rejects when
 * there is no answer (the connection failed, or `timeoutMs` passed).
 */
export const httpSend: HttpSend = async (request) => {
  const url = new URL(request.url);
  const transport = transportFor(url.protocol);
  return new Promise((resolve, reject) => {
    const req = transport.request(
      {
        protocol: url.protocol,
        hostname: url.hostname,
        port: url.port || (url.protocol === 'https:' ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: request.method,
        headers: request.body === undefined ? request.headers : { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
        agent: transport.agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.setTimeout(request.timeoutMs, () => req.destroy(Object.assign(new Error(`${request.method} ${url.pathname} timed out after ${request.timeoutMs} ms`), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
    req.end(request.body);
  });
};
