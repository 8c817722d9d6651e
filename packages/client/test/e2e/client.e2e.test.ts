/**
 * `@tilecast/client` against the real reference server over HTTP (127.0.0.1): every
 * method (publishing and the webhook map), a typed error for each refusal, and the events loop through a
 * server-forced close, a replay, an outage and an expired event.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, TilecastApiError, type Timing, type WidgetContent } from '../../src/index.js';
import { BROKE_TOKEN, press, startServer, TOKEN, type TestServer } from './server.js';
import { collect, watchedFetch } from './watch.js';

let server: TestServer | undefined;
const stops: AbortController[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) stop.abort();
  await server?.cleanup();
  server = undefined;
});

function abortable(): AbortSignal {
  const stop = new AbortController();
  stops.push(stop);
  return stop.signal;
}

/** Fake time for the events loop: sleeps are recorded, not waited; `onSleep` runs while "asleep". */
function fakeSleeps(onSleep: (sleeps: number[]) => Promise<void> | void = () => {}): Timing & { sleeps: number[] } {
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => Date.now(),
    random: () => 0.5,
    sleep: async (ms) => {
      sleeps.push(ms);
      await onSleep(sleeps);
    },
  };
}

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as TilecastApiError,
  );

describe('publishing', () => {
  it('updates an activity and returns the echo with defaults and icon_v2', async () => {
    server = await startServer();
    const api = createClient({ baseUrl: server.url, token: TOKEN });
    const echo = await api
      .activity<'progress'>('build')
      .update({ state: 'ONGOING', content: { template: 'progress', progress: { value: 0.4 }, icon: 'hammer' } });
    expect(echo.state).toBe('ONGOING');
    expect(echo.content).toMatchObject({ template: 'progress', progress: { style: 'simple', value: 0.4, color: 'blue' }, header_left: null, icon: 'hammer' });
    expect(echo.content.icon_v2).toMatchObject({ name: 'hammer', rendering_mode: null });
    expect(await api.activity('build').update({ state: 'IDLE', content: { template: 'progress', progress: { value: 1 } } })).toMatchObject({ state: 'IDLE' });
  });

  it('updates a widget, keeping, then clearing stale_after', async () => {
    server = await startServer();
    const api = createClient({ baseUrl: `${server.url}/`, token: TOKEN });
    const kept = await api.widget<'gauge'>('boiler').update({ content: { template: 'gauge', value: 61, unit: '°C' } });
    expect(kept).toEqual({
      content: expect.objectContaining({ template: 'gauge', value: 61, min_value: 0, max_value: 100, unit: '°C', label: null }),
      stale_after: 3600,
    });
    expect((await api.widget('boiler').update({ content: { template: 'gauge', value: 62 }, stale_after: null })).stale_after).toBeNull();
    expect((await api.widget('boiler').update({ content: { template: 'gauge', value: 63 }, stale_after: 120 })).stale_after).toBe(120);
  });
});

describe('webhook map', () => {
  it('puts, gets and deletes the map, redacted', async () => {
    server = await startServer();
    const hooks = createClient({ baseUrl: server.url, token: TOKEN }).widget('lights').webhooks;
    const put = await hooks.put({
      webhooks: {
        hall: {
          url: 'https://hooks.example.com/lights/{{action}}?key=s3cret',
          headers: { authorization: 'Bearer abc' },
          secret: 'shh',
          body: { on: '{{value}}' },
        },
        '*': { url: 'https://hooks.example.com/any', method: 'GET' },
      },
    });
    const hall = {
      config: { url: 'https://hooks.example.com/lights/{{action}}?key=***', method: 'POST', headers: { authorization: '***' }, body: { on: '{{value}}' } },
      last_success_at: null,
      last_failure_at: null,
    };
    const any = { config: { url: 'https://hooks.example.com/any', method: 'GET', headers: {}, body: null }, last_success_at: null, last_failure_at: null };
    expect(put).toEqual({ webhooks: { hall, '*': any } });
    expect(JSON.stringify(put)).not.toContain('shh');
    expect(await hooks.get()).toEqual(put);
    expect(await hooks.delete()).toBeUndefined();
    expect(await hooks.get()).toEqual({ webhooks: {} });
  });

  it('refuses an invalid map with field errors and an unknown widget with 404', async () => {
    server = await startServer();
    const api = createClient({ baseUrl: server.url, token: TOKEN });
    const invalid = await rejection(api.widget('lights').webhooks.put({ webhooks: { hall: { url: 'http://hooks.example.com/' } } }));
    expect(invalid?.status).toBe(422);
    expect(invalid?.fieldErrors[0]?.loc).toEqual(['body', 'webhooks', 'hall', 'url']);
    expect(await rejection(api.widget('nope').webhooks.get())).toMatchObject({ status: 404, detail: 'Widget not found' });
    expect(await rejection(api.widget('nope').webhooks.delete())).toMatchObject({ status: 404, detail: 'Widget not found' });
  });
});

describe('typed errors', () => {
  it('401 for an unknown token, 402 without a subscription', async () => {
    server = await startServer();
    const content: WidgetContent<'switchboard'> = { template: 'switchboard', actions: [{ id: 'a', label: 'A' }] };
    const unknown = await rejection(createClient({ baseUrl: server.url, token: 'tok_nobody_here' }).widget('lights').update({ content }));
    expect(unknown).toBeInstanceOf(TilecastApiError);
    expect(unknown).toMatchObject({ status: 401, detail: 'Could not validate credentials', request: 'PATCH /widget/lights' });
    expect(await rejection(createClient({ baseUrl: server.url, token: BROKE_TOKEN }).widget('lights').update({ content }))).toMatchObject({
      status: 402,
      detail: 'No active subscription was found',
    });
  });

  it('404 for an unknown slug, 400 for a template mismatch', async () => {
    server = await startServer();
    const api = createClient({ baseUrl: server.url, token: TOKEN });
    expect(await rejection(api.widget('nope').update({ content: { template: 'gauge', value: 1 } }))).toMatchObject({ status: 404, detail: 'Widget not found' });
    expect(await rejection(api.activity('nope').update({ state: 'IDLE', content: { template: 'generic', progress: 0 } }))).toMatchObject({
      status: 404,
      detail: 'Activity not found',
    });
    expect(await rejection(api.widget('boiler').update({ content: { template: 'switchboard', actions: [{ id: 'a', label: 'A' }] } }))).toMatchObject({
      status: 400,
      detail: 'Template mismatch',
    });
  });

  it('422 with a field-error array, and 422 with a string detail', async () => {
    server = await startServer();
    const api = createClient({ baseUrl: server.url, token: TOKEN });
    const invalid = await rejection(api.activity('build').update({ state: 'ONGOING', content: { template: 'progress', progress: { value: 2 } } }));
    expect(invalid?.status).toBe(422);
    expect(invalid?.fieldErrors.map((e) => e.loc)).toEqual([['body', 'content', 'progress', 'value']]);
    expect(Array.isArray(invalid?.detail)).toBe(true);

    const content = await rejection(api.widget('boiler').update({ content: { template: 'gauge', value: 1, min_value: 10, max_value: 5 } }));
    expect(content).toMatchObject({ status: 422, detail: 'Invalid widget content', fieldErrors: [] });

    await api.activity('build').update({ state: 'ONGOING', content: { template: 'progress', progress: { value: 0 } } });
    const quota = await rejection(api.activity('deploy').update({ state: 'ONGOING', content: { template: 'generic', progress: 0 } }));
    expect(quota).toMatchObject({ status: 422, detail: 'Too many ongoing activities' });
  });

  it('events(): 401, 402, 422 and 429 end the iteration with the error, without retrying', async () => {
    server = await startServer();
    const { url } = server;
    const first = async (token: string, options = {}) => {
      const timing = fakeSleeps();
      const error = await rejection(
        createClient({ baseUrl: url, token, timing })
          .events({ signal: abortable(), ...options })
          .next(),
      );
      expect(timing.sleeps).toEqual([]);
      return error;
    };
    expect(await first('tok_nobody_here')).toMatchObject({ status: 401, detail: 'Could not validate credentials' });
    expect(await first(BROKE_TOKEN)).toMatchObject({ status: 402, detail: 'No active subscription was found' });
    expect(await first(TOKEN, { subject: 'lights' })).toMatchObject({ status: 422, detail: 'Invalid subject filter: lights' });

    const watched = watchedFetch();
    const api = createClient({ baseUrl: url, token: TOKEN, fetch: watched.fetch });
    for (let i = 0; i < 4; i++) collect(api.events({ signal: abortable() }));
    await watched.opened(4);
    expect(await first(TOKEN)).toMatchObject({ status: 429, detail: 'Too many event streams' });
  });
});

describe('events()', () => {
  it('follows the stream across server-forced closes: no event lost, none repeated', async () => {
    server = await startServer({ lifetimeMs: 400 });
    const { url } = server;
    const pressedWhileAway: string[] = [];
    // While the client waits out `retry:`, a phone presses: only a resume can deliver it.
    const timing = fakeSleeps(async (sleeps) => {
      if (sleeps.length <= 2) pressedWhileAway.push(await press(url, { slug: 'lights', request_id: `away-${sleeps.length}`, action: 'bell' }));
    });
    const watched = watchedFetch();
    const api = createClient({ baseUrl: url, token: TOKEN, fetch: watched.fetch, timing });
    const stream = collect(api.events({ types: ['widget.action.v1'], subject: 'widget/lights', signal: abortable() }));
    await watched.opened(1);
    const live1 = await press(url, { slug: 'lights', request_id: 'live-1', action: 'bell' });
    await watched.opened(2);
    const live2 = await press(url, { slug: 'lights', request_id: 'live-2', action: 'bell' });
    await watched.opened(3);
    await stream.count(4);
    expect(stream.failure).toBeUndefined();
    expect(stream.ids()).toEqual([live1, pressedWhileAway[0], live2, pressedWhileAway[1]]);
    expect(timing.sleeps.slice(0, 2)).toEqual([1000, 1000]); // the server's retry:, never a back-off
    // Each reconnect resumed from the last id it saw, sent as it came.
    expect(watched.state.lastEventIds.slice(0, 3)).toEqual([undefined, 'u:1', 'u:3']);
    expect(stream.events[0]).toMatchObject({ type: 'widget.action.v1', subject: { kind: 'widget', slug: 'lights' }, data: { action: 'bell', kind: 'button' } });
  });

  it('yields each event once when a reconnect replays from an earlier position', async () => {
    server = await startServer({ lifetimeMs: 400 });
    const { url } = server;
    // Every reconnect asks for everything since the start, as a client that lost its place would.
    const watched = watchedFetch((headers) => {
      if (headers['last-event-id'] !== undefined) headers['last-event-id'] = 'u:0';
    });
    const api = createClient({ baseUrl: url, token: TOKEN, fetch: watched.fetch, timing: fakeSleeps() });
    const stream = collect(api.events({ signal: abortable() }));
    await watched.opened(1);
    const a = await press(url, { slug: 'lights', request_id: 'a', action: 'bell' });
    await watched.opened(2);
    const b = await press(url, { slug: 'lights', request_id: 'b', action: 'bell' });
    await watched.opened(4); // two replays of both events by now
    await stream.count(2);
    expect(stream.ids()).toEqual([a, b]);
  });

  it('backs off while the server is down, and resumes when it is back on the same port', async () => {
    server = await startServer();
    const current = server;
    const timing = fakeSleeps(async (sleeps) => {
      if (sleeps.length === 4) await current.restart(); // during the third back-off
    });
    const watched = watchedFetch();
    const api = createClient({ baseUrl: current.url, token: TOKEN, fetch: watched.fetch, timing });
    const stream = collect(api.events({ signal: abortable() }));
    await watched.opened(1);
    await current.stop();
    await watched.opened(2);
    expect(timing.sleeps).toEqual([1000, 750, 1500, 3000]); // retry:, then doubling with jitter
    const id = await press(current.url, { slug: 'lights', request_id: 'back', action: 'bell' });
    await stream.count(1);
    expect(stream.ids()).toEqual([id]);
  });

  it('drops an event that arrives after its expires_at', async () => {
    server = await startServer();
    const { url } = server;
    // The client's clock reads 10 s late for the first event only: to it, that event has expired.
    let reads = 0;
    const timing = { ...fakeSleeps(), now: () => Date.now() + (reads++ === 0 ? 10_000 : 0) };
    const watched = watchedFetch();
    const stream = collect(createClient({ baseUrl: url, token: TOKEN, fetch: watched.fetch, timing }).events({ signal: abortable() }));
    await watched.opened(1);
    await press(url, { slug: 'lights', request_id: 'stale', action: 'bell' });
    const fresh = await press(url, { slug: 'lights', request_id: 'fresh', action: 'bell' });
    await stream.count(1);
    expect(stream.ids()).toEqual([fresh]);
    expect(reads).toBe(2);
  });
});
