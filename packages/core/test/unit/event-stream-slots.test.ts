import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '@tilecast/storage-memory';
import type { CoreRequest } from '../../src/adapter.js';
import { createTilecast, silentLogger } from '../../src/index.js';

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
    expect(storage.stats().eventStreamSlots).toBe(4);
    await tilecast.close();
  });
});

describe('event stream slots through the request’s onClose (the Node adapters’ way)', () => {
  it('a client that leaves before its stream runs frees the slot; after it runs, the stream’s end releases it, once', async () => {
    const storage = createMemoryStorage();
    const tilecast = createTilecast({ storage, logger: silentLogger, purgeIntervalMs: 0 });
    const { token } = await tilecast.management.createAccount({ id: 'acme' });
    const closers: (() => void)[][] = [];
    const closable = (): CoreRequest => {
      const own: (() => void)[] = [];
      closers.push(own);
      return { ...request(token), onClose: (fn) => void own.push(fn) };
    };
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await tilecast.handle(closable()));
    expect(await tilecast.handle(request(token))).toMatchObject({ status: 429 });
    for (const fn of closers[0]!) fn(); // never ran: the close alone releases it
    await Promise.resolve();
    expect(storage.stats().eventStreamSlots).toBe(3);

    const second = results[1]!;
    if (second.kind !== 'sse') throw new Error('not a stream');
    const sinkClosers: (() => void)[] = [];
    const sink = {
      bufferedBytes: 0,
      signal: new AbortController().signal,
      write: async () => {},
      end: () => {},
      onClose: (fn: () => void) => void sinkClosers.push(fn),
    };
    const running = second.run(sink);
    for (const fn of closers[1]!) fn(); // the request's listener no longer releases anything…
    await Promise.resolve();
    expect(storage.stats().eventStreamSlots).toBe(3);
    for (const fn of sinkClosers) fn(); // …the stream's end does
    await running;
    expect(storage.stats().eventStreamSlots).toBe(2);
    await tilecast.close();
  });
});

describe('event stream slots on every kind of ending', () => {
  /** A memory store whose cross-instance wake-up the test drives, as another instance's append would. */
  async function setup() {
    const storage = createMemoryStorage();
    const listeners = new Set<(accountId: string) => void>();
    storage.subscribeEvents = (listener) => (listeners.add(listener), () => void listeners.delete(listener));
    const tilecast = createTilecast({ storage, logger: silentLogger, purgeIntervalMs: 0 });
    const { token } = await tilecast.management.createAccount({ id: 'acme' });
    const appendElsewhere = async () => {
      await storage.appendEvent('acme', { id: 'e', subject: 'widget/x', type: 'widget.action.v1', expiresAt: Date.now() + 60_000, envelope: { id: 'e' } });
      for (const listener of listeners) listener('acme');
    };
    const open = async (bufferedBytes: () => number) => {
      const result = await tilecast.handle(request(token));
      if (result.kind !== 'sse') throw new Error(`not a stream: ${JSON.stringify(result)}`);
      const controller = new AbortController();
      const sink = {
        get bufferedBytes() {
          return bufferedBytes();
        },
        signal: controller.signal,
        write: async () => {},
        end: () => controller.abort(),
      };
      return { running: result.run(sink) };
    };
    return { storage, tilecast, appendElsewhere, open };
  }

  it('a client too far behind (over 1 MiB queued): the stream ends and its slot is free', async () => {
    const { storage, tilecast, appendElsewhere, open } = await setup();
    let queued = 0;
    const { running } = await open(() => queued);
    expect(storage.stats().eventStreamSlots).toBe(1);
    queued = 2 * 1024 * 1024;
    await appendElsewhere();
    await running;
    expect(storage.stats().eventStreamSlots).toBe(0);
    await tilecast.close();
  });

  it('the store failing mid-stream: the stream ends and its slot is released', async () => {
    const { storage, tilecast, appendElsewhere, open } = await setup();
    const { running } = await open(() => 0);
    const down = async (): Promise<never> => {
      throw new Error('database is down');
    };
    storage.lastEventPosition = down;
    storage.readEvents = down;
    await appendElsewhere();
    await running;
    expect(storage.stats().eventStreamSlots).toBe(0);
    await tilecast.close();
  });
});
