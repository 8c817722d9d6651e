/**
 * Open streams end with their credentials (docs/contract/events-and-webhooks.md#stream-revocation): a
 * rotated token, an ended subscription, a deleted account, a removed device or a new device
 * token ends the streams opened with the old credential within 5 s; every other stream
 * keeps running.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryStorage, type MemoryStorage } from '@tilecast/storage-memory';
import { startApi, type ApiServer } from '../support/api-server.js';
import { seedFixture, type Fixture } from '../support/fixtures.js';
import { createManualClock, type ManualClock } from '../support/manual-clock.js';
import { openSse, type SseConnection } from '../support/sse-client.js';

const PING_MS = 20_000;
const BOUND_MS = 5_000;

describe('open streams end with their credentials (memory store)', () => {
  let api: ApiServer;
  let f: Fixture;
  let clock: ManualClock;
  let storage: MemoryStorage;
  const open: SseConnection[] = [];

  const opened = async (connection: SseConnection) => {
    open.push(connection);
    expect(connection.status).toBe(200);
    await connection.next(); // the opening `retry:` line: the stream runs
    return connection;
  };
  const events = (token: string) => openSse(`${api.url}/events`, { authorization: `Token ${token}` }).then(opened);
  const deviceStream = (token: string) => openSse(`${api.url}/device/stream`, { authorization: `Device ${token}` }).then(opened);
  /** Real time bounds only a failure: the stream must already have ended when the clock moved. */
  const hasEnded = (connection: SseConnection) =>
    Promise.race([connection.ended.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1_000))]);
  /** A running stream gets its `: ping` after an idle interval. */
  const stillRunning = async (...connections: SseConnection[]) => {
    clock.advance(PING_MS);
    for (const connection of connections) await connection.next((frame) => frame.comment === 'ping', 2_000);
  };

  beforeEach(async () => {
    clock = createManualClock();
    storage = createMemoryStorage();
    api = await startApi('node-http', { clock, storage });
    f = await seedFixture(api.tilecast);
  });
  afterEach(async () => {
    for (const connection of open.splice(0)) connection.close();
    await api.close();
  });

  it("a rotated token ends the streams opened with it; the new token's and another account's keep running", async () => {
    const old = [await events(f.acme), await events(f.acme)];
    const other = await events(f.other);
    const token = await api.tilecast.management.rotateToken('acme');
    const renewed = await events(token);
    clock.advance(BOUND_MS);
    expect(await Promise.all(old.map(hasEnded))).toEqual([true, true]);
    await stillRunning(renewed, other);
  });

  it("an ended subscription ends the account's streams", async () => {
    const acme = await events(f.acme);
    const other = await events(f.other);
    await api.tilecast.management.setSubscription('acme', 'none');
    clock.advance(BOUND_MS);
    expect(await hasEnded(acme)).toBe(true);
    await stillRunning(other);
  });

  it("a deleted account ends its event streams and its devices' streams", async () => {
    const acme = await events(f.acme);
    const phone = await deviceStream(f.deviceToken);
    const other = await events(f.other);
    const guest = await deviceStream(f.guestToken);
    await api.tilecast.management.deleteAccount('acme');
    clock.advance(BOUND_MS);
    expect([await hasEnded(acme), await hasEnded(phone)]).toEqual([true, true]);
    await stillRunning(other, guest);
  });

  it('a removed device ends its streams; another device keeps its own', async () => {
    const phone = [await deviceStream(f.deviceToken), await deviceStream(f.deviceToken)];
    const guest = await deviceStream(f.guestToken);
    await api.tilecast.management.deleteDevice('acme-phone');
    clock.advance(BOUND_MS);
    expect(await Promise.all(phone.map(hasEnded))).toEqual([true, true]);
    await stillRunning(guest);
  });

  it("a new device token ends the streams opened with the old one; the new token's keeps running", async () => {
    const old = await deviceStream(f.deviceToken);
    const { token } = await api.tilecast.management.registerDevice({ id: 'acme-phone', account: 'acme' });
    const renewed = await deviceStream(token);
    clock.advance(BOUND_MS);
    expect(await hasEnded(old)).toBe(true);
    await stillRunning(renewed);
  });

  it('a store that cannot be asked ends no stream; the change is applied once it answers', async () => {
    const acme = await events(f.acme);
    const phone = await deviceStream(f.deviceToken);
    const check = storage.checkCredentials;
    storage.checkCredentials = async () => {
      throw new Error('database is down');
    };
    await api.tilecast.management.rotateToken('acme');
    await api.tilecast.management.deleteDevice('acme-phone');
    clock.advance(BOUND_MS);
    await stillRunning(acme, phone);
    storage.checkCredentials = check;
    clock.advance(BOUND_MS);
    expect([await hasEnded(acme), await hasEnded(phone)]).toEqual([true, true]);
  });
});

describe('open streams end with their credentials on every instance (two instances on one memory store)', () => {
  it('a token rotated and a device removed through instance A end the streams open on instance B', async () => {
    const clock = createManualClock();
    const storage = createMemoryStorage();
    const a = await startApi('node-http', { clock, storage });
    const b = await startApi('node-http', { clock, storage });
    const f = await seedFixture(a.tilecast);
    const streams = [
      await openSse(`${b.url}/events`, { authorization: `Token ${f.acme}` }),
      await openSse(`${b.url}/device/stream`, { authorization: `Device ${f.deviceToken}` }),
    ];
    try {
      for (const stream of streams) await stream.next();
      await a.tilecast.management.rotateToken('acme');
      await a.tilecast.management.deleteDevice('acme-phone');
      clock.advance(BOUND_MS);
      await Promise.all(streams.map((stream) => stream.ended));
    } finally {
      for (const stream of streams) stream.close();
      await a.close();
      await b.close();
    }
  });
});
