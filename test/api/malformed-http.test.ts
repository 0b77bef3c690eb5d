import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../local/platform';
import { startTestPlatform } from '../support/platform';

/** Requests Node's HTTP parser refuses before any route sees them still answer problem+json. */

let platform: Platform;
beforeAll(async () => {
  platform = await startTestPlatform({ workers: [] });
});
afterAll(() => platform?.stop());

/** Sends raw bytes to the public gateway and reads the answer until the server closes. */
function raw(bytes: string): Promise<{ status: number; headers: Record<string, string>; body: any }> {
  const { hostname, port } = new URL(platform.urls.public);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    // The server closes with most of a huge request unread, which may reset the connection after
    // its answer arrived: what was read is the answer.
    socket.on('error', (error) => (text ? socket.destroy() : reject(error)));
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: body ? JSON.parse(body) : undefined });
    });
    socket.write(bytes);
  });
}

describe('malformed HTTP at the embedded gateway', () => {
  it('answers a 1 MB Authorization header with 431 headers_too_large as problem+json', async () => {
    const answer = await raw(`GET /v1/users HTTP/1.1\r\nHost: local\r\nAuthorization: Bearer ${'a'.repeat(1024 * 1024)}\r\n\r\n`);
    expect(answer.status).toBe(431);
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(answer.body).toMatchObject({ code: 'headers_too_large', status: 431 });
  });

  it('answers a request line that is not HTTP with 400 invalid_request as problem+json', async () => {
    const answer = await raw('THIS IS NOT HTTP\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(answer.body).toMatchObject({ code: 'invalid_request', status: 400 });
  });
});
