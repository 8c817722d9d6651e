/**
 * The Node body reader leaves nothing attached to a request it has read: left attached,
 * its listeners keep a finished request and its body alive.
 */
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readLimited } from '../src/io/body.js';

const EVENTS = ['data', 'end', 'error', 'close'] as const;
const listeners = (req: IncomingMessage) => EVENTS.map((name) => req.listenerCount(name));

let close: (() => Promise<void>) | undefined;
afterEach(async () => close?.());

/** Sends `body` to a server that reads it with `readLimited(limit)`; resolves with what the server saw. */
async function readOnServer(body: string, limit: number) {
  let seen: { result: string; before: number[]; after: number[] } | undefined;
  const server = createServer(async (req, res) => {
    const before = listeners(req);
    const read = await readLimited(req, limit);
    seen = { result: read === 'too_large' ? read : Buffer.from(read).toString(), before, after: listeners(req) };
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/' }, (res) => res.resume().on('end', resolve));
    req.on('error', reject);
    req.end(body);
  });
  return seen!;
}

describe('readLimited', () => {
  it('reads the whole body and removes its listeners at the end', async () => {
    const seen = await readOnServer('{"a":1}', 1024);
    expect(seen.result).toBe('{"a":1}');
    expect(seen.after).toEqual(seen.before);
  });

  it('stops over the limit and removes its listeners', async () => {
    const seen = await readOnServer('x'.repeat(100), 10);
    expect(seen.result).toBe('too_large');
    expect(seen.after).toEqual(seen.before);
  });
});
