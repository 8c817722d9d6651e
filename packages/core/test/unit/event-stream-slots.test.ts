import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { createTilecast, silentLogger, type CoreRequest } from '../../src/index.js';

const request = (token: string, signal?: AbortSignal): CoreRequest => ({
  method: 'GET',
  path: '/events',
  query: new URLSearchParams(),
  headers: { authorization: `Token ${token}` },
  body: { kind: 'parsed', value: undefined },
  signal,
});

describe('event stream slots', () => {
  it('a client that leaves before its stream runs frees the slot', async () => {
    const storage = createMemoryStorage();
    const tilecast = createTilecast({ storage, logger: silentLogger, purgeIntervalMs: 0 });
    const { token } = await tilecast.management.createAccount({ id: 'acme' });
    const controllers = Array.from({ length: 4 }, () => new AbortController());
    for (const controller of controllers) expect((await tilecast.handle(request(token, controller.signal))).kind).toBe('sse');
    expect(await tilecast.handle(request(token))).toMatchObject({ status: 429 });
    // The adapter never ran the stream (the client went away first): the abort alone must release it.
    controllers[0]!.abort();
    await Promise.resolve();
    expect((await tilecast.handle(request(token))).kind).toBe('sse');
    expect(storage.stats().leases).toBe(4);
    await tilecast.close();
  });
});
