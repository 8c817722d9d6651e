/**
 * `GET /device/stream` is capped per device (docs/contract/device-api.md#device-stream-cap, docs/contract/device-api.md#device-stream-slot-release): at most
 * 4 open per device, across instances; a fifth gets `429 {"detail": "Too many device
 * streams"}`. Slots are leases like those of `GET /events`: released when a stream ends,
 * renewed while it lives, freed with the device and its credential.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adapters, startApi, type ApiServer } from '../support/api-server.js';
import { seedFixture, type Fixture } from '../support/fixtures.js';
import { createManualClock, type ManualClock } from '../support/manual-clock.js';
import { openSse, type SseConnection } from '../support/sse-client.js';
import { openStore, stores, type TestStore } from '../support/stores.js';

const LIFETIME_MS = 15 * 60_000;
const BOUND_MS = 5_000;

describe.each(adapters)('device-stream slots through %s', (adapter) => {
  let api: ApiServer;
  let f: Fixture;
  let clock: ManualClock;
  const open: SseConnection[] = [];
  const deviceStream = async (token: string) => {
    const connection = await openSse(`${api.url}/device/stream`, { authorization: `Device ${token}` });
    open.push(connection);
    return connection;
  };
  /** Four running streams of the device: every slot it has. */
  const fourStreams = async (token: string) => {
    const streams = [];
    for (let i = 0; i < 4; i++) {
      const stream = await deviceStream(token);
      expect(stream.status).toBe(200);
      await stream.next(); // the opening `retry:` line: the stream runs
      streams.push(stream);
    }
    return streams;
  };

  beforeEach(async () => {
    clock = createManualClock();
    api = await startApi(adapter, { clock });
    f = await seedFixture(api.tilecast);
  });
  afterEach(async () => {
    for (const connection of open.splice(0)) connection.close();
    await api.close();
  });

  it('a fifth concurrent stream of one device is 429; other devices are unaffected; a slot frees when a client disconnects', async () => {
    const streams = await fourStreams(f.deviceToken);
    const fifth = await deviceStream(f.deviceToken);
    expect(fifth.status).toBe(429);
    expect(fifth.body).toEqual({ detail: 'Too many device streams' });
    expect(fifth.headers.get('content-type')).toMatch(/^application\/json/);
    // Another device, and the account's own event streams, are not affected.
    expect((await deviceStream(f.guestToken)).status).toBe(200);
    const events = await openSse(`${api.url}/events`, { authorization: `Token ${f.acme}` });
    open.push(events);
    expect(events.status).toBe(200);
    streams[0]!.close();
    await waitFor(async () => (await deviceStream(f.deviceToken)).status === 200);
  });

  it('401 comes before the cap: a bad token takes no slot', async () => {
    for (let i = 0; i < 6; i++) expect((await deviceStream('dev_nope')).status).toBe(401);
    await fourStreams(f.deviceToken);
  });

  it('slots free when the streams end by lifetime', async () => {
    const streams = await fourStreams(f.deviceToken);
    clock.advance(LIFETIME_MS);
    await Promise.all(streams.map((s) => s.ended));
    await waitFor(async () => (await deviceStream(f.deviceToken)).status === 200);
  });

  it("a removed device's streams end and its slots go: the id registered again opens four streams", async () => {
    const streams = await fourStreams(f.deviceToken);
    await api.tilecast.management.deleteDevice('acme-phone');
    const { token } = await api.tilecast.management.registerDevice({ id: 'acme-phone', account: 'acme' });
    await fourStreams(token);
    clock.advance(BOUND_MS);
    await Promise.all(streams.map((s) => s.ended));
  });

  it('a new device token frees the slots at once: the new token opens four streams while the old ones end', async () => {
    const streams = await fourStreams(f.deviceToken);
    const { token } = await api.tilecast.management.registerDevice({ id: 'acme-phone', account: 'acme' });
    await fourStreams(token);
    expect((await deviceStream(token)).status).toBe(429);
    clock.advance(BOUND_MS);
    await Promise.all(streams.map((s) => s.ended));
  });
});

describe.each(stores)('device-stream slots across two instances on %s', (store) => {
  let opened: TestStore;
  const open: SseConnection[] = [];
  afterEach(async () => {
    for (const connection of open.splice(0)) connection.close();
  });
  beforeEach(async () => {
    opened = await openStore(store);
  });

  it('four streams spread over both instances make a fifth 429 on either; a closed one frees a slot for both', async () => {
    const clock = createManualClock();
    const a = await startApi('node-http', { clock, storage: opened.storage });
    const b = await startApi('node-http', { clock, storage: opened.storage });
    try {
      const f = await seedFixture(a.tilecast);
      const stream = async (api: ApiServer) => {
        const connection = await openSse(`${api.url}/device/stream`, { authorization: `Device ${f.deviceToken}` });
        open.push(connection);
        return connection;
      };
      const streams = [await stream(a), await stream(b), await stream(a), await stream(b)];
      for (const s of streams) expect(s.status).toBe(200);
      await Promise.all(streams.map((s) => s.next()));
      for (const api of [a, b]) expect(await stream(api)).toMatchObject({ status: 429, body: { detail: 'Too many device streams' } });
      streams[1]!.close();
      await waitFor(async () => (await stream(a)).status === 200);
      expect((await stream(b)).status).toBe(429);
    } finally {
      for (const connection of open.splice(0)) connection.close();
      await a.close();
      await b.close();
      await opened.release();
    }
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
