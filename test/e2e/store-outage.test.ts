/**
 * A store that cannot answer (`StorageUnavailableError`, what a store throws when it is
 * down or misses a deadline): every endpoint answers `503 {"detail": "Service Unavailable"}`,
 * and the two stream endpoints the temporary-outage stream (`200`, only `retry:`, end),
 * whichever step hit the outage. Any other store error stays a `500`. Every adapter.
 * (The real PostgreSQL outage, through a paused TCP proxy: `store-outage-postgres.test.ts`.)
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StorageUnavailableError, type Storage } from '@tilecast/core';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { adapters, request, startApi, type ApiServer } from '../support/api-server.js';
import { createCapturingLogger, seedFixture, switchboardContent, type Fixture } from '../support/fixtures.js';
import { openSse } from '../support/sse-client.js';

const UNAVAILABLE = { detail: 'Service Unavailable' };

/** The memory store behind a switch: while `failing` is set, the named methods (all when none) reject with its error. */
function switchable(storage: Storage) {
  const state = { failing: undefined as (() => Error) | undefined, only: undefined as Set<string> | undefined, calls: [] as string[] };
  const proxy = new Proxy(storage, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function' || typeof key !== 'string') return value;
      return (...args: unknown[]) => {
        if (state.failing && (state.only === undefined || state.only.has(key))) {
          state.calls.push(key);
          return Promise.reject(state.failing());
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return {
    storage: proxy,
    down(error: () => Error = () => new StorageUnavailableError('test outage'), only?: string[]) {
      state.failing = error;
      state.only = only && new Set(only);
      state.calls = [];
    },
    up() {
      state.failing = undefined;
    },
    calls: () => state.calls,
  };
}

describe.each(adapters)('a store outage through %s', (adapter) => {
  let api: ApiServer;
  let f: Fixture;
  let store: ReturnType<typeof switchable>;
  let log: ReturnType<typeof createCapturingLogger>;

  beforeEach(async () => {
    store = switchable(createMemoryStorage());
    log = createCapturingLogger();
    api = await startApi(adapter, { storage: store.storage, logger: log.logger });
    f = await seedFixture(api.tilecast);
    expect((await request(api, 'PATCH', '/widget/lights', { token: f.acme, body: { content: switchboardContent() } })).status).toBe(200);
  });
  afterEach(() => api.close());

  const everyEndpoint = async () => ({
    widget: await request(api, 'PATCH', '/widget/lights', { token: f.acme, body: { content: switchboardContent() } }),
    activity: await request(api, 'PATCH', '/activity/build', {
      token: f.acme,
      body: { state: 'IDLE', content: { template: 'progress', progress: { value: 0 } } },
    }),
    putWebhooks: await request(api, 'PUT', '/widget/lights/webhooks', { token: f.acme, body: { webhooks: { '*': { url: 'https://hooks.example.com/x' } } } }),
    getWebhooks: await request(api, 'GET', '/widget/lights/webhooks', { token: f.acme }),
    deleteWebhooks: await request(api, 'DELETE', '/widget/lights/webhooks', { token: f.acme }),
    press: await request(api, 'POST', '/device/presses', {
      authorization: `Device ${f.deviceToken}`,
      body: { owner: 'acme', slug: 'lights', request_id: 'r1', action: 'bell' },
    }),
  });

  it('every endpoint answers 503 Service Unavailable while the store is down, and works again after', async () => {
    store.down();
    for (const [name, reply] of Object.entries(await everyEndpoint())) {
      expect({ name, status: reply.status, body: reply.body }).toEqual({ name, status: 503, body: UNAVAILABLE });
    }
    expect(log.lines.some((line) => line.startsWith('warn storage unavailable') && line.includes('test outage'))).toBe(true);
    expect(log.lines.filter((line) => line.startsWith('error'))).toEqual([]);
    store.up();
    const after = await everyEndpoint();
    expect(Object.values(after).map((reply) => reply.status)).toEqual([200, 200, 200, 200, 204, 202]);
  });

  it('a publish with a cached credential fails at once: no second lookup waits out another deadline', async () => {
    store.down();
    const reply = await request(api, 'PATCH', '/widget/lights', { token: f.acme, body: { content: switchboardContent() } });
    expect(reply).toMatchObject({ status: 503, body: UNAVAILABLE });
    expect(store.calls()).toEqual(['setWidgetContent']);
  });

  it('GET /events answers the outage stream whichever step hit the outage, the token lookup included', async () => {
    for (const step of ['findAccountByTokenHash', 'acquireEventStreamSlot', 'lastEventPosition']) {
      store.down(undefined, [step]);
      const events = await openSse(`${api.url}/events`, { authorization: `Token ${f.acme}` });
      expect({ step, status: events.status }).toEqual({ step, status: 200 });
      await events.ended;
      expect(events.frames.map((frame) => frame.raw)).toEqual(['retry: 1000']);
      expect(store.calls()).toEqual([step]);
    }
    // The slot taken before the last step failed was given back: four streams still open.
    store.up();
    const open = [];
    for (let i = 0; i < 4; i++) open.push(await openSse(`${api.url}/events`, { authorization: `Token ${f.acme}` }));
    expect(open.map((s) => s.status)).toEqual([200, 200, 200, 200]);
    for (const s of open) s.close();
  });

  it('GET /device/stream answers the outage stream too, when the device lookup, the slot or the snapshot fails', async () => {
    for (const step of ['findDeviceByTokenHash', 'acquireDeviceStreamSlot', 'listWidgets']) {
      store.down(undefined, [step]);
      const stream = await openSse(`${api.url}/device/stream`, { authorization: `Device ${f.deviceToken}` });
      expect({ step, status: stream.status }).toEqual({ step, status: 200 });
      await stream.ended;
      expect(stream.frames.map((frame) => frame.raw)).toEqual(['retry: 1000']);
    }
    // The slot of the stream whose snapshot failed was given back: four streams still open.
    store.up();
    const open = [];
    for (let i = 0; i < 4; i++) open.push(await openSse(`${api.url}/device/stream`, { authorization: `Device ${f.deviceToken}` }));
    expect(open.map((s) => s.status)).toEqual([200, 200, 200, 200]);
    for (const s of open) s.close();
  });

  it('an unexpected store error is not an outage: 500 everywhere, GET /events included, and logged as a failure', async () => {
    store.down(() => new Error('a bug'));
    for (const [name, reply] of Object.entries(await everyEndpoint())) {
      expect({ name, status: reply.status, body: reply.body }).toEqual({ name, status: 500, body: { detail: 'Internal Server Error' } });
    }
    for (const step of ['findAccountByTokenHash', 'acquireEventStreamSlot', 'lastEventPosition']) {
      store.down(() => new Error('a bug'), [step]);
      const events = await openSse(`${api.url}/events`, { authorization: `Token ${f.acme}` });
      expect({ step, status: events.status, body: events.body }).toEqual({ step, status: 500, body: { detail: 'Internal Server Error' } });
    }
    store.down(() => new Error('a bug'), ['findDeviceByTokenHash']);
    expect((await openSse(`${api.url}/device/stream`, { authorization: `Device ${f.deviceToken}` })).status).toBe(500);
    // Logged with the path the client asked for, the device API's mount included.
    expect(log.lines.some((line) => line.startsWith('error request failed') && line.includes('"path":"/device/stream"'))).toBe(true);
  });
});
