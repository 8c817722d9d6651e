import { createMemoryStorage } from '@tilecast/storage-memory';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../../test/support/manual-clock.js';
import type { CoreRequest } from '../../src/adapter.js';
import { createTilecast, type DeviceTransport, silentLogger, type Storage, StorageUnavailableError, type WidgetPush } from '../../src/index.js';
import { WidgetWrites } from '../../src/publishing/widget-writes.js';
import type { WidgetContentResult } from '../../src/storage/records.js';

/** A memory store whose `setWidgetContent` calls wait until the test lets each one through. */
function gatedStore() {
  const storage = createMemoryStorage();
  const gates: Array<() => void> = [];
  const written: unknown[] = [];
  let failNext: Error | null = null;
  const gated: Storage = Object.create(storage);
  gated.setWidgetContent = (accountId, slug, update) =>
    new Promise<void>((resolve) => gates.push(resolve)).then(() => {
      written.push(update);
      if (failNext !== null) {
        const error = failNext;
        failNext = null;
        throw error;
      }
      return storage.setWidgetContent(accountId, slug, update);
    });
  return {
    storage,
    gated,
    written,
    failOnce: (error: Error) => void (failNext = error),
    /** Lets the oldest waiting write through and lets its settlement run. */
    async release() {
      gates.shift()?.();
      for (let i = 0; i < 10; i++) await Promise.resolve();
    },
    get waiting() {
      return gates.length;
    },
  };
}

const switchboard = (label: string) => ({ template: 'switchboard', title: label, actions: [{ id: 'a', label: 'Hall', kind: 'button' }] });

async function setUp() {
  const store = gatedStore();
  const clock = createManualClock();
  const { tokenHash } = await seed(store.storage);
  const delivered: WidgetContentResult[] = [];
  const writes = new WidgetWrites(store.gated, clock, (result) => delivered.push(result));
  const guard = { tokenHash, template: 'switchboard' };
  return { store, writes, delivered, guard };
}

async function seed(storage: Storage) {
  const tilecast = createTilecast({ storage, logger: silentLogger, purgeIntervalMs: 0, delivery: { pollMs: 0 } });
  await tilecast.management.createAccount({ id: 'acme' });
  await tilecast.management.createWidget({ account: 'acme', slug: 'lights', template: 'switchboard' });
  await tilecast.management.createWidget({ account: 'acme', slug: 'doors', template: 'switchboard' });
  const account = await storage.getAccount('acme');
  await tilecast.close();
  return { tokenHash: account!.tokenHash };
}

describe('widget writes (docs/contract/publisher-api.md#widget-concurrent-updates)', () => {
  it('writes an update at once when nothing of its widget is in flight', async () => {
    const { store, writes, guard, delivered } = await setUp();
    const first = writes.write('acme', 'lights', { content: switchboard('one'), staleAfter: undefined, guard });
    expect(store.waiting).toBe(1);
    await store.release();
    const result = await first;
    expect(result.ok && result.widget.content).toEqual(switchboard('one'));
    expect(delivered).toHaveLength(1);
  });

  it('writes the updates that arrived during a write as one, the latest content stored, each answered with its own', async () => {
    const { store, writes, guard, delivered } = await setUp();
    const answers = ['one', 'two', 'three', 'four'].map((label) =>
      writes.write('acme', 'lights', { content: switchboard(label), staleAfter: undefined, guard }),
    );
    // The first is in flight; two, three and four wait for it, and go as one write.
    expect(store.waiting).toBe(1);
    await store.release();
    expect(store.waiting).toBe(1);
    await store.release();
    const results = await Promise.all(answers);
    expect(results.map((result) => result.ok && result.widget.content)).toEqual(['one', 'two', 'three', 'four'].map(switchboard));
    expect(store.written).toHaveLength(2);
    expect((await store.storage.getWidget('acme', 'lights'))?.content).toEqual(switchboard('four'));
    // Delivered once per stored write, the last with the latest content.
    expect(delivered.map((result) => result.ok && result.widget.content)).toEqual([switchboard('one'), switchboard('four')]);
  });

  it('does not answer a waiting update before its write is stored', async () => {
    const { store, writes, guard } = await setUp();
    void writes.write('acme', 'lights', { content: switchboard('one'), staleAfter: undefined, guard });
    let answered = false;
    void writes.write('acme', 'lights', { content: switchboard('two'), staleAfter: undefined, guard }).then(() => {
      answered = true;
    });
    await store.release();
    expect(answered).toBe(false);
    await store.release();
    expect(answered).toBe(true);
  });

  it('keeps updates with another guard or stale_after in writes of their own, in arrival order', async () => {
    const { store, writes, guard } = await setUp();
    const other = { ...guard, tokenHash: 'f'.repeat(64) };
    const answers = [
      writes.write('acme', 'lights', { content: switchboard('one'), staleAfter: undefined, guard }),
      writes.write('acme', 'lights', { content: switchboard('two'), staleAfter: undefined, guard }),
      writes.write('acme', 'lights', { content: switchboard('stale'), staleAfter: 120, guard }),
      writes.write('acme', 'lights', { content: switchboard('foreign'), staleAfter: 120, guard: other }),
      writes.write('acme', 'lights', { content: switchboard('last'), staleAfter: 120, guard: other }),
    ];
    for (let i = 0; i < 4; i++) await store.release();
    const results = await Promise.all(answers);
    expect(store.written.map((update) => (update as { content: { title: string } }).content.title)).toEqual(['one', 'two', 'stale', 'last']);
    expect(results[2]).toMatchObject({ ok: true, widget: { staleAfter: 120 } });
    // A guard that does not hold is refused for each update it guarded, and for nothing else.
    expect(results.map((result) => result.ok)).toEqual([true, true, true, false, false]);
    expect((await store.storage.getWidget('acme', 'lights'))?.content).toEqual(switchboard('stale'));
  });

  it('fails every update of a write the store could not make, and goes on with the next', async () => {
    const { store, writes, guard } = await setUp();
    const first = writes.write('acme', 'lights', { content: switchboard('one'), staleAfter: undefined, guard });
    const second = writes.write('acme', 'lights', { content: switchboard('two'), staleAfter: undefined, guard });
    const third = writes.write('acme', 'lights', { content: switchboard('three'), staleAfter: undefined, guard });
    await store.release();
    await first;
    store.failOnce(new StorageUnavailableError('PostgreSQL unavailable: test'));
    await store.release();
    await expect(second).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(third).rejects.toBeInstanceOf(StorageUnavailableError);
    // Nothing is left in flight: the next update is written at once.
    const fourth = writes.write('acme', 'lights', { content: switchboard('four'), staleAfter: undefined, guard });
    expect(store.waiting).toBe(1);
    await store.release();
    expect((await fourth).ok).toBe(true);
  });

  it('goes on with the waiting updates when delivering a stored write throws', async () => {
    const store = gatedStore();
    const { tokenHash } = await seed(store.storage);
    const guard = { tokenHash, template: 'switchboard' };
    let calls = 0;
    const writes = new WidgetWrites(store.gated, createManualClock(), () => {
      calls += 1;
      if (calls === 1) throw new Error('delivery failed');
    });
    const first = writes.write('acme', 'lights', { content: switchboard('one'), staleAfter: undefined, guard });
    const second = writes.write('acme', 'lights', { content: switchboard('two'), staleAfter: undefined, guard });
    await store.release();
    await expect(first).rejects.toThrow('delivery failed');
    await store.release();
    expect((await second).ok).toBe(true);
    expect(calls).toBe(2);
  });

  it('never writes two widgets together', async () => {
    const { store, writes, guard } = await setUp();
    const lights = writes.write('acme', 'lights', { content: switchboard('lights'), staleAfter: undefined, guard });
    const doors = writes.write('acme', 'doors', { content: switchboard('doors'), staleAfter: undefined, guard });
    expect(store.waiting).toBe(2);
    await store.release();
    await store.release();
    expect((await lights).ok && (await doors).ok).toBe(true);
    expect((await store.storage.getWidget('acme', 'doors'))?.content).toEqual(switchboard('doors'));
  });
});

describe('PATCH /widget during a write of the same widget (docs/contract/publisher-api.md#widget-concurrent-updates)', () => {
  it('answers each request with its own content and pushes the latest', async () => {
    const store = gatedStore();
    const clock = createManualClock();
    const pushes: WidgetPush[] = [];
    const transport: DeviceTransport = {
      pushActivity: async () => 'delivered',
      pushWidget: async (_deviceId, push) => void pushes.push(push),
    };
    const tilecast = createTilecast({ storage: store.gated, transport, clock, logger: silentLogger, purgeIntervalMs: 0, delivery: { pollMs: 0 } });
    const { token } = await tilecast.management.createAccount({ id: 'acme' });
    await tilecast.management.createWidget({ account: 'acme', slug: 'lights', template: 'switchboard' });
    await tilecast.management.registerDevice({ id: 'phone', account: 'acme' });
    const patch = (label: string): CoreRequest => ({
      method: 'PATCH',
      path: '/widget/lights',
      query: new URLSearchParams(),
      headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
      body: { kind: 'parsed', value: { content: switchboard(label) } },
    });
    const answers = ['one', 'two', 'three'].map((label) => tilecast.handle(patch(label)));
    for (let i = 0; i < 50 && store.waiting === 0; i++) await new Promise((resolve) => setImmediate(resolve));
    await store.release();
    for (let i = 0; i < 50 && store.waiting === 0; i++) await new Promise((resolve) => setImmediate(resolve));
    await store.release();
    const responses = (await Promise.all(answers)) as Array<{ status: number; body?: unknown }>;
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(responses.map((response) => (response.body as { content: { title: string } }).content.title)).toEqual(['one', 'two', 'three']);
    expect(store.written).toHaveLength(2);
    await tilecast.idle?.();
    clock.advance(2_000);
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
    expect((pushes.at(-1)?.content as { title: string } | undefined)?.title).toBe('three');
    await tilecast.close();
  });
});
