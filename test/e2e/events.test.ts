import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StorageUnavailableError, type Storage } from '@tilecast/core';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { EVENT_LIFETIME_MS } from '../../packages/core/src/presses/press-intake.js';
import { adapters, request, startApi, type ApiServer } from '../support/api-server.js';
import { seedFixture, switchboardContent, type Fixture } from '../support/fixtures.js';
import { createManualClock, type ManualClock } from '../support/manual-clock.js';
import { dataOf, openSse, type SseConnection } from '../support/sse-client.js';

const PING_MS = 20_000;
const LIFETIME_MS = 15 * 60_000;

describe.each(adapters)('GET /events through %s', (adapter) => {
  let api: ApiServer;
  let f: Fixture;
  let clock: ManualClock;
  let storage: Storage;
  const open: SseConnection[] = [];
  let n = 0;

  const stream = async (query = '', headers: Record<string, string> = {}, token = f.acme) => {
    const connection = await openSse(`${api.url}/events${query}`, { authorization: `Token ${token}`, ...headers });
    open.push(connection);
    return connection;
  };
  const press = async (body: Record<string, unknown> = {}) => {
    const reply = await request(api, 'POST', '/device/presses', {
      authorization: `Device ${f.deviceToken}`,
      body: { owner: 'acme', slug: 'lights', request_id: `r${n++}`, action: 'bell', ...body },
    });
    expect(reply.status).toBe(202);
    return reply.body.event_id as string;
  };
  const dataFrame = (frame: { data?: string }) => frame.data !== undefined;

  beforeEach(async () => {
    clock = createManualClock();
    storage = createMemoryStorage();
    api = await startApi(adapter, { clock, storage });
    f = await seedFixture(api.tilecast);
    await request(api, 'PATCH', '/widget/lights', { token: f.acme, body: { content: switchboardContent() } });
  });
  afterEach(async () => {
    for (const connection of open.splice(0)) connection.close();
    await api.close();
  });

  it('opens with retry: 1000 and an id line, with the specified headers, then carries events as id + one data line', async () => {
    const events = await stream();
    expect(events.status).toBe(200);
    expect(events.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(events.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(events.headers.get('x-accel-buffering')).toBe('no');
    expect(events.headers.get('content-encoding')).toBeNull();
    const opening = await events.next();
    expect(opening.raw).toBe('retry: 1000\nid: u:0');

    const id = await press({ action: 'hall', value: true, request_id: 'tap' });
    const frame = await events.next(dataFrame);
    expect(frame.raw.split('\n')).toHaveLength(2);
    expect(frame.id).toBe('u:1');
    expect(dataOf(frame)).toMatchObject({
      id,
      request_id: 'tap',
      type: 'widget.action.v1',
      subject: { kind: 'widget', slug: 'lights' },
      data: { action: 'hall', kind: 'toggle', value: true },
    });
  });

  it('no gzip even when asked for', async () => {
    const events = await stream('', { 'accept-encoding': 'gzip' });
    expect(events.headers.get('content-encoding')).toBeNull();
  });

  it('requires the owner token: 401 and 402 as on the publisher API', async () => {
    expect((await stream('', {}, 'nope')).status).toBe(401);
    expect((await stream('', {}, f.unsubscribed)).status).toBe(402);
  });

  it('filters by types and subject (repeatable); unknown types match nothing', async () => {
    await api.tilecast.management.createWidget({ account: 'acme', slug: 'panel', template: 'switchboard' });
    await request(api, 'PATCH', '/widget/panel', { token: f.acme, body: { content: switchboardContent() } });
    const panelOnly = await stream('?subject=widget/panel&subject=activity/build');
    const nothing = await stream('?types=widget.action.v2');
    const typed = await stream('?types=widget.action.v1&types=other');
    await press();
    const id = await press({ slug: 'panel' });
    expect(dataOf(await panelOnly.next(dataFrame)).id).toBe(id);
    expect((await typed.next(dataFrame)).id).toBe('u:1');
    expect((await typed.next(dataFrame)).id).toBe('u:2');
    clock.advance(PING_MS);
    expect((await nothing.next((frame) => frame.comment === 'ping')).raw).toBe(': ping');
    expect(nothing.frames.some(dataFrame)).toBe(false);
  });

  it('422 for a subject that is not <kind>/<slug> with a known kind', async () => {
    for (const bad of ['lights', 'gadget/lights', 'widget/', '/lights', 'widget/a/b']) {
      const reply = await stream(`?subject=widget/lights&subject=${encodeURIComponent(bad)}`);
      expect(reply.status, bad).toBe(422);
      expect(reply.body).toEqual({ detail: `Invalid subject filter: ${bad}` });
    }
  });

  it('a fifth concurrent stream is 429; a slot frees when a client disconnects', async () => {
    const streams = [await stream(), await stream(), await stream(), await stream()];
    const fifth = await stream();
    expect(fifth.status).toBe(429);
    expect(fifth.body).toEqual({ detail: 'Too many event streams' });
    // Another account is not affected.
    expect((await stream('', {}, f.other)).status).toBe(200);
    streams[0]!.close();
    await waitFor(async () => (await stream()).status === 200);
  });

  it('a slot frees when the stream is refused by a bad filter or ends by lifetime', async () => {
    for (let i = 0; i < 6; i++) expect((await stream('?subject=nope')).status).toBe(422);
    const streams = [await stream(), await stream(), await stream(), await stream()];
    clock.advance(LIFETIME_MS);
    await Promise.all(streams.map((s) => s.ended));
    await waitFor(async () => (await stream()).status === 200);
  });

  it('sends : ping every 20 s while idle, and closes after 15 minutes', async () => {
    const events = await stream();
    await events.next();
    clock.advance(PING_MS - 1);
    await press();
    await events.next(dataFrame);
    clock.advance(PING_MS - 1);
    expect(events.frames.some((f) => f.comment === 'ping')).toBe(false);
    clock.advance(1);
    await events.next((frame) => frame.comment === 'ping');
    clock.advance(LIFETIME_MS);
    await events.ended;
  });

  it('without Last-Event-ID nothing is replayed', async () => {
    await press();
    const events = await stream();
    expect((await events.next()).raw).toBe('retry: 1000\nid: u:1');
    await press();
    expect((await events.next(dataFrame)).id).toBe('u:2');
  });

  it('Last-Event-ID replays the unexpired events after it, then follows live, with no gap or duplicate', async () => {
    for (let i = 0; i < 3; i++) await press();
    const events = await stream('', { 'last-event-id': 'u:1' });
    expect((await events.next()).raw).toBe('retry: 1000\nid: u:1');
    expect((await events.next(dataFrame)).id).toBe('u:2');
    expect((await events.next(dataFrame)).id).toBe('u:3');
    await press();
    expect((await events.next(dataFrame)).id).toBe('u:4');
  });

  it('events published during a replay arrive once, in order', async () => {
    for (let i = 0; i < 250; i++) {
      await storage.appendEvent('acme', {
        id: `e${i}`,
        subject: 'widget/lights',
        type: 'widget.action.v1',
        expiresAt: clock.now() + EVENT_LIFETIME_MS,
        envelope: { id: `e${i}` },
      });
    }
    const events = await stream('', { 'last-event-id': 'u:0' });
    const more = Promise.all(Array.from({ length: 5 }, () => press()));
    await more;
    const ids: string[] = [];
    while (ids.length < 255) ids.push((await events.next(dataFrame)).id!);
    expect(ids).toEqual(Array.from({ length: 255 }, (_, i) => `u:${i + 1}`));
    clock.advance(PING_MS);
    await events.next((frame) => frame.comment === 'ping');
    expect(events.frames.filter(dataFrame)).toHaveLength(255);
  });

  it('expired events are never replayed', async () => {
    await press();
    clock.advance(EVENT_LIFETIME_MS);
    await press();
    const events = await stream('', { 'last-event-id': 'u:0' });
    expect((await events.next(dataFrame)).id).toBe('u:2');
  });

  it('an unrecognised Last-Event-ID replays every unexpired event', async () => {
    await press();
    await press();
    for (const value of ['abc', 'u:', 'u:-1', 'u:1e3', '7', `u:${'9'.repeat(4000)}`, 'u:99']) {
      const events = await stream('', { 'last-event-id': value });
      expect((await events.next(dataFrame)).id, value).toBe('u:1');
      events.close();
    }
  });

  it("positions are per account: another account never sees acme's events", async () => {
    await press();
    const events = await stream('', { 'last-event-id': 'u:0' }, f.other);
    clock.advance(PING_MS);
    await events.next((frame) => frame.comment === 'ping');
    expect(events.frames.some(dataFrame)).toBe(false);
  });
});

describe('GET /events when the store fails', () => {
  it('answers 200 with only a retry: line, then ends (temporary outage)', async () => {
    const storage = createMemoryStorage();
    const api = await startApi('node-http', { storage });
    const f = await seedFixture(api.tilecast);
    storage.acquireEventStreamSlot = async () => {
      throw new StorageUnavailableError('database is down');
    };
    const events = await openSse(`${api.url}/events`, { authorization: `Token ${f.acme}` });
    expect(events.status).toBe(200);
    await events.ended;
    expect(events.frames.map((frame) => frame.raw)).toEqual(['retry: 1000']);
    await api.close();
  });
});

/** Retries `check` on real I/O turns until it holds (bounded). */
async function waitFor(check: () => Promise<boolean>, attempts = 50): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('condition not met');
}
