/** The observer seam: what the core tells it, with which labels, and that it can never break a request. */
import { createMemoryStorage } from '@tilecast/storage-memory';
import { describe, expect, it } from 'vitest';
import type { CoreRequest, CoreResult, SseSink } from '../../src/adapter.js';
import { combineObservers, createTilecast, StorageUnavailableError, type Clock, type Logger, type Observer, type Storage } from '../../src/index.js';
import type { PushObservation, RequestObservation } from '../../src/observer.js';
import type { PushOutcome } from '../../src/transport/device-transport.js';

const req = (method: string, path: string, authorization?: string, body?: unknown): CoreRequest => ({
  method,
  path,
  query: new URLSearchParams(),
  headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
  body: { kind: 'parsed', value: body },
});

/** An observer that records every call as `[method, value]`. */
function recorder(): Observer & { calls: [string, unknown][] } {
  const calls: [string, unknown][] = [];
  const keep = (name: string) => (value: unknown) => void calls.push([name, value]);
  return {
    calls,
    requestFinished: keep('requestFinished'),
    pushSettled: keep('pushSettled'),
    webhookAttempt: keep('webhookAttempt'),
    webhookDelivered: keep('webhookDelivered'),
    streamOpened: keep('streamOpened'),
    streamClosed: keep('streamClosed'),
    press: keep('press'),
    storeError: keep('storeError'),
  };
}

const requests = (calls: [string, unknown][]) =>
  calls
    .filter(([name]) => name === 'requestFinished')
    .map(([, value]) => {
      const { durationMs, ...rest } = value as RequestObservation;
      expect(durationMs).toBeGreaterThanOrEqual(0);
      return rest;
    });

async function setup(options: { storage?: Storage; observer?: Observer; logger?: Logger; devicePath?: string; clock?: Clock } = {}) {
  const storage = options.storage ?? createMemoryStorage();
  const observer = options.observer ?? recorder();
  const tilecast = createTilecast({
    storage,
    observer,
    logger: options.logger ?? { info() {}, warn() {}, error() {} },
    clock: options.clock,
    purgeIntervalMs: 0,
    openapi: options.devicePath ? { devicePath: options.devicePath } : undefined,
  });
  const { token } = await tilecast.management.createAccount({ id: 'acme' });
  const { token: deviceToken } = await tilecast.management.registerDevice({ id: 'acme-phone', account: 'acme' });
  await tilecast.management.createWidget({ account: 'acme', slug: 'boiler', template: 'gauge' });
  return { tilecast, token, deviceToken, observer };
}

const gauge = { content: { template: 'gauge', value: 20, unit: '°C', label: 'Boiler' } };

describe('the observer seam', () => {
  it('reports each request with its route pattern, status and account, never the path', async () => {
    const observer = recorder();
    const { tilecast, token, deviceToken } = await setup({ observer, devicePath: '/phones' });
    expect((await tilecast.handle(req('PATCH', '/widget/boiler', `Token ${token}`, gauge))).kind).toBe('json');
    await tilecast.handle(req('PATCH', '/widget/boiler', `Token ${token}`, gauge)); // from the credential cache
    await tilecast.handle(req('PATCH', '/widget/boiler', 'Token nope', gauge));
    await tilecast.handle(req('DELETE', '/widget/boiler', `Token ${token}`));
    await tilecast.device.handle(req('GET', '/widgets', `Device ${deviceToken}`));
    await tilecast.health.handle(req('GET', '/healthz'));
    expect(requests(observer.calls)).toEqual([
      { method: 'PATCH', route: '/widget/{slug}', status: 200, accountId: 'acme' },
      { method: 'PATCH', route: '/widget/{slug}', status: 200, accountId: 'acme' },
      { method: 'PATCH', route: '/widget/{slug}', status: 401, accountId: null },
      { method: 'DELETE', route: 'unmatched', status: 405, accountId: null },
      { method: 'GET', route: '/phones/widgets', status: 200, accountId: 'acme' },
      { method: 'GET', route: '/healthz', status: 200, accountId: null },
    ]);
  });

  it('an observer that throws is logged and changes no answer', async () => {
    const errors: string[] = [];
    const logger: Logger = { info() {}, warn() {}, error: (message, fields) => void errors.push(`${message} ${JSON.stringify(fields)}`) };
    const { tilecast, token } = await setup({
      logger,
      observer: {
        requestFinished() {
          throw new Error('broken observer');
        },
      },
    });
    const answer = await tilecast.handle(req('PATCH', '/widget/boiler', `Token ${token}`, gauge));
    expect(answer).toMatchObject({ kind: 'json', status: 200 });
    expect(errors).toEqual(['observer failed {"method":"requestFinished","error":"Error: broken observer"}']);
  });

  it('counts a store outage as a deadline or as unavailable, by the error the store threw', async () => {
    const storage = createMemoryStorage();
    const observer = recorder();
    const { tilecast, token } = await setup({ storage, observer });
    let failure: Error = new StorageUnavailableError('statement deadline', { deadline: true });
    storage.findAccountByTokenHash = () => Promise.reject(failure);
    const publish = () => tilecast.handle(req('GET', '/widget/boiler/webhooks', `Token ${token}`));
    expect(await publish()).toMatchObject({ status: 503 });
    failure = new StorageUnavailableError('connection refused');
    expect(await publish()).toMatchObject({ status: 503 });
    // A stream's outage answer (200, `retry:` only) counts too.
    expect(await tilecast.handle(req('GET', '/events', `Token ${token}`))).toMatchObject({ kind: 'sse' });
    expect(observer.calls.filter(([name]) => name === 'storeError').map(([, value]) => value)).toEqual([
      { kind: 'deadline' },
      { kind: 'unavailable' },
      { kind: 'unavailable' },
    ]);
  });

  it('counts open streams by kind; a drain closes each once', async () => {
    const observer = recorder();
    const { tilecast, token, deviceToken } = await setup({ observer });
    const run = async (answer: Promise<CoreResult>) => {
      const result = await answer;
      if (result.kind !== 'sse') throw new Error('not a stream');
      const controller = new AbortController();
      const sink: SseSink = { write: async () => {}, bufferedBytes: 0, signal: controller.signal, end: () => controller.abort() };
      return result.run(sink);
    };
    const events = run(tilecast.handle(req('GET', '/events', `Token ${token}`)));
    const device = run(tilecast.device.handle(req('GET', '/stream', `Device ${deviceToken}`)));
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    // `name kind`, sorted: the two streams open in either order.
    const streams = () =>
      observer.calls
        .filter(([name]) => name.startsWith('stream'))
        .map(([name, value]) => `${name} ${(value as { kind: string }).kind}`)
        .sort();
    expect(streams()).toEqual(['streamOpened device', 'streamOpened events']);
    expect(tilecast.drain()).toEqual({ streamsEnded: 2 });
    await Promise.all([events, device]);
    expect(streams()).toEqual(['streamClosed device', 'streamClosed events', 'streamOpened device', 'streamOpened events']);
    await tilecast.close();
  });

  it("reports each push by transport: the device stream's, and the host transport's under its name", async () => {
    const observer = recorder();
    const storage = createMemoryStorage();
    const tilecast = createTilecast({
      storage,
      observer,
      logger: { info() {}, warn() {}, error() {} },
      purgeIntervalMs: 0,
      transport: {
        name: 'flaky',
        pushActivity: () => Promise.resolve(),
        pushWidget: () => Promise.reject(new Error('unreachable')),
      },
    });
    const { token } = await tilecast.management.createAccount({ id: 'acme' });
    await tilecast.management.registerDevice({ id: 'acme-phone', account: 'acme' });
    await tilecast.management.createWidget({ account: 'acme', slug: 'boiler', template: 'gauge' });
    expect(await tilecast.handle(req('PATCH', '/widget/boiler', `Token ${token}`, gauge))).toMatchObject({ status: 200 });
    await tilecast.idle();
    expect(observer.calls.filter(([name]) => name === 'pushSettled').map(([, value]) => value)).toEqual([
      { transport: 'device_stream', kind: 'widget', outcome: 'not_connected' },
      { transport: 'flaky', kind: 'widget', outcome: 'failed' },
    ]);
    await tilecast.close();
  });

  it("reports a host transport's push under the outcome its promise resolved with; nothing, or an unknown value, is delivered", async () => {
    const observer = recorder();
    const storage = createMemoryStorage();
    const outcomes: unknown[] = ['refused', 'dropped', 'token_removed', 'skipped', 'superseded', 'delivered', undefined, 'sent'];
    let next = 0;
    const tilecast = createTilecast({
      storage,
      observer,
      logger: { info() {}, warn() {}, error() {} },
      purgeIntervalMs: 0,
      transport: { name: 'apns', pushActivity: () => Promise.resolve(), pushWidget: () => Promise.resolve(outcomes[next++] as PushOutcome) },
    });
    const { token } = await tilecast.management.createAccount({ id: 'acme' });
    for (let i = 0; i < outcomes.length; i++) await tilecast.management.registerDevice({ id: `phone-${i}`, account: 'acme' });
    await tilecast.management.createWidget({ account: 'acme', slug: 'boiler', template: 'gauge' });
    expect(await tilecast.handle(req('PATCH', '/widget/boiler', `Token ${token}`, gauge))).toMatchObject({ status: 200 });
    await tilecast.idle();
    const reported = observer.calls
      .filter(([name, value]) => name === 'pushSettled' && (value as PushObservation).transport === 'apns')
      .map(([, value]) => (value as PushObservation).outcome);
    expect(reported).toEqual(['refused', 'dropped', 'token_removed', 'skipped', 'superseded', 'delivered', 'delivered', 'delivered']);
    await tilecast.close();
  });

  it('combineObservers tells each observer in turn', () => {
    const [a, b] = [recorder(), recorder()];
    combineObservers(a, b, {}).press!({ outcome: 'accepted' });
    expect([a.calls, b.calls]).toEqual([[['press', { outcome: 'accepted' }]], [['press', { outcome: 'accepted' }]]]);
  });
});
