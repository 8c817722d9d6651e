// Tilecast for the APNs scenarios, with transport-apns pushing to the double whose origin
// and CA come in BENCH_APNS_ORIGIN / BENCH_APNS_CA (signing key: BENCH_APNS_KEY).
// BENCH_APNS_CONNECTION_THREAD=main puts the transport's connections on the main thread
// (diagnostics: BENCH_CPU_PROF then profiles them too; the default worker is what A1-A4 measure).
//   a1: account `bench-0` (token `tok_bench_0`) with A1_DEVICES phones, each with a
//       WidgetKit token, and switchboard widgets `panel-<r>` (r < 64), one per fan-out
//       (the per-widget throttle lets each one's first update through at once); account
//       `quiet` (token `tok_quiet`) with a widget `load` and no devices, for the PATCH
//       latency load.
//   a1-stand-in: a1 with a stand-in for transport-apns that settles every push without
//       sending it, STAND_IN_PUSHES_PER_MS per millisecond (about A1's rate): the core's
//       fan-out alone on the publisher's thread (tools/a1-latency.mjs --stand-in).
//   a2: accounts `a2-<n>` (token `tok_a2_<n>`, n < A2_ACTIVITIES), each with a live
//       progress activity `trip` shown on A2_DEVICES_PER_ACTIVITY phones, each holding an
//       update token for it.
//   a3: an empty memory store; IPC `register` {count, apns} registers that many phones,
//       with `apns` also their APNs tokens (push-to-start, widgets, one activity's update token).
//   a4: accounts `solo` and `fleet` (tokens `tok_solo`, `tok_fleet`), each with a progress
//       activity `live` delivered by broadcast, and `tokens` (`tok_tokens`) with one delivered
//       per token, none started, no phones; the transport also broadcasts. IPC `register-a4`
//       {account, count, channels} registers that many phones of the account in production:
//       with `channels`, following channels with a push-to-start token each; without, with
//       an update token for `live`. `channels` answers each account's `live` channels;
//       `server-latencies`, each request's time in this process (see `timed`).
// argv[3] `postgres` (a1 and a2; A1P, A2P): the store on PostgreSQL at DATABASE_URL, in a
// schema of its own started afresh, the phones and their tokens written in bulk
// (lib/apns-postgres.mjs); default `memory`.
// IPC `await-pushes` {total} answers `pushes-done` once `total` pushes have settled since
// start; `counters` answers the transport's counters; `idle` answers `idle` {settled} once
// every job and push started so far is done (A2P: a job a newer one replaced may end
// before handing all its devices over, so no count of pushes tells when a burst is done).
import { createTilecast, silentLogger } from '@tilecast/core';
import { mount } from '@tilecast/adapter-node-http';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { apnsRegistryFrom, createApnsTransport } from '@tilecast/transport-apns';
import { freshPostgresStorage } from '../lib/apns-postgres.mjs';
import { A1_DEVICES, A2_ACTIVITIES, A2_DEVICES_PER_ACTIVITY, A4_ACCOUNTS, APNS_IDS, STREAMS, deviceToken, pushWaiter } from '../lib/apns-fleet.mjs';
import { progressContent, switchboardContent } from '../lib/payloads.mjs';
import { serve } from '../lib/serve.mjs';

const mode = process.argv[2];
const postgres = process.argv[3] === 'postgres' ? await freshPostgresStorage(process.env.DATABASE_URL) : null;
const storage = postgres?.storage ?? createMemoryStorage();
const apns =
  mode === 'a3' || mode === 'a1-stand-in'
    ? null
    : createApnsTransport({
        ...APNS_IDS,
        signingKey: process.env.BENCH_APNS_KEY,
        registry: apnsRegistryFrom(storage),
        origin: process.env.BENCH_APNS_ORIGIN,
        ca: process.env.BENCH_APNS_CA,
        maxConcurrentStreams: STREAMS,
        connectionThread: process.env.BENCH_APNS_CONNECTION_THREAD === 'main' ? 'main' : 'worker',
      });
let settled = 0;
const check = pushWaiter(() => settled);
// Counts each push as it settles, passing its outcome on (shared handlers: the harness adds
// one promise per push, not the closures and inner promise of `finally`).
const onSent = () => {
  settled++;
  check();
};
const onFailed = (error) => {
  onSent();
  throw error;
};
const counted = (push) => push.then(onSent, onFailed);

const STAND_IN_PUSHES_PER_MS = 8;
/** Settles the pushes handed to it in order, STAND_IN_PUSHES_PER_MS per millisecond; holds the process only while any wait. */
function standInTransport() {
  const waiting = [];
  let timer = null;
  const tick = () => {
    for (let i = 0; i < STAND_IN_PUSHES_PER_MS && waiting.length > 0; i++) waiting.shift()();
    if (waiting.length === 0) {
      clearInterval(timer);
      timer = null;
    }
  };
  const push = () =>
    new Promise((resolve) => {
      waiting.push(resolve);
      timer ??= setInterval(tick, 1);
    });
  return { pushWidget: () => counted(push()), pushActivity: () => counted(push()) };
}
const tilecast = createTilecast({
  storage,
  logger: silentLogger,
  transport:
    mode === 'a1-stand-in'
      ? standInTransport()
      : apns === null
        ? undefined
        : {
            pushWidget: (id, push) => counted(apns.pushWidget(id, push)),
            pushActivity: (id, push) => counted(apns.pushActivity(id, push)),
            // A4 only: A1–A3 stay as they were measured, without the broadcast step in their jobs.
            ...(mode === 'a4' ? { broadcastActivity: (broadcast) => apns.broadcastActivity(broadcast) } : {}),
          },
});
const m = tilecast.management;

async function publish(token, path, body) {
  const reply = await tilecast.handle({
    method: 'PATCH',
    path,
    query: new URLSearchParams(),
    headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
    body: { kind: 'parsed', value: body },
  });
  if (reply.status !== 200) throw new Error(`PATCH ${path} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
}

if (mode === 'a1' || mode === 'a1-stand-in') {
  await m.createAccount({ id: 'bench-0', token: 'tok_bench_0', activityQuota: 1 });
  for (let r = 0; r < 64; r++) await m.createWidget({ account: 'bench-0', slug: `panel-${r}`, template: 'switchboard' });
  if (postgres !== null)
    await postgres.seed(Array.from({ length: A1_DEVICES }, (_, n) => ({ id: `phone-${n}`, account: 'bench-0', widgets: deviceToken('widgets', n) })));
  else
    for (let n = 0; n < A1_DEVICES; n++) {
      await m.registerDevice({ id: `phone-${n}`, account: 'bench-0' });
      await storage.setApnsRegistration(`phone-${n}`, { environment: 'production', widgets: deviceToken('widgets', n) });
    }
  await m.createAccount({ id: 'quiet', token: 'tok_quiet', activityQuota: 1 });
  await m.createWidget({ account: 'quiet', slug: 'load', template: 'switchboard' });
  await publish('tok_quiet', '/widget/load', { content: switchboardContent() });
} else if (mode === 'a2') {
  const phones = [];
  const activityTokens = [];
  for (let n = 0; n < A2_ACTIVITIES; n++) {
    const account = `a2-${n}`;
    await m.createAccount({ id: account, token: `tok_a2_${n}`, activityQuota: 1 });
    await m.createActivity({ account, slug: 'trip', template: 'progress', dismissalDelayS: 60 });
    // Started before the phones register: the start pushes find no push-to-start token.
    await publish(`tok_a2_${n}`, '/activity/trip', { state: 'ONGOING', content: progressContent() });
    for (let j = 0; j < A2_DEVICES_PER_ACTIVITY; j++) {
      const id = `${account}-phone-${j}`;
      if (postgres !== null) {
        phones.push({ id, account });
        activityTokens.push({ device: id, account, slug: 'trip', token: deviceToken('activity', n * A2_DEVICES_PER_ACTIVITY + j) });
        continue;
      }
      await m.registerDevice({ id, account });
      await storage.setApnsRegistration(id, { environment: 'production' });
      await storage.setActivityPushToken(id, account, 'trip', deviceToken('activity', n * A2_DEVICES_PER_ACTIVITY + j));
    }
  }
  await postgres?.seed(phones, activityTokens);
  await tilecast.idle();
  settled = 0;
} else if (mode === 'a3') {
  let registered = 0;
  await m.createAccount({ id: 'fleet', token: 'tok_fleet', activityQuota: 1 });
  await m.createActivity({ account: 'fleet', slug: 'trip', template: 'progress' });
  process.on('message', async (message) => {
    if (message?.type !== 'register') return;
    for (let i = 0; i < message.count; i++, registered++) {
      const id = `phone-${registered}`;
      await m.registerDevice({ id, account: 'fleet' });
      if (!message.apns) continue;
      await storage.setApnsRegistration(id, {
        environment: 'production',
        pushToStart: deviceToken('start', registered),
        widgets: deviceToken('widgets', registered),
      });
      await storage.setActivityPushToken(id, 'fleet', 'trip', deviceToken('activity', registered));
    }
    process.send({ type: 'registered', id: message.id });
  });
} else if (mode === 'a4') {
  for (const [account, delivery] of A4_ACCOUNTS) {
    await m.createAccount({ id: account, token: `tok_${account}`, activityQuota: 1 });
    await m.createActivity({ account, slug: 'live', template: 'progress', delivery });
  }
  const registered = new Map();
  process.on('message', async (message) => {
    if (message?.type === 'channels') {
      const channels = {};
      for (const [account] of A4_ACCOUNTS) channels[account] = (await storage.getActivity(account, 'live'))?.channels ?? null;
      process.send({ type: 'channels', id: message.id, channels });
    }
    if (message?.type !== 'register-a4') return;
    const { account, count, channels } = message;
    const first = registered.get(account) ?? 0;
    registered.set(account, first + count);
    for (let n = first; n < first + count; n++) await registerA4(account, n, channels);
    process.send({ type: 'registered', id: message.id });
  });
} else throw new Error(`mode a1, a2, a3 or a4, not ${mode}`);

/** Phone `n` of an A4 account, in production: following channels with a push-to-start token, or with an update token for `live`. */
async function registerA4(account, n, channels) {
  const id = `${account}-${n}`;
  await m.registerDevice({ id, account });
  if (channels) {
    await storage.setApnsRegistration(id, { environment: 'production', pushToStart: deviceToken(`${account}-start`, n), channels: true });
    return;
  }
  await storage.setApnsRegistration(id, { environment: 'production' });
  await storage.setActivityPushToken(id, account, 'live', deviceToken(`${account}-activity`, n));
}

process.on('message', async (message) => {
  if (message?.type === 'idle') {
    await tilecast.idle();
    process.send({ type: 'idle', id: message.id, settled });
  }
  if (message?.type === 'counters') process.send({ type: 'counters', id: message.id, counters: apns?.counters() ?? null, load: apns?.load() ?? null });
});

const listener = mount({ '/': tilecast, '/device': tilecast.device });
await serve(mode === 'a4' ? timed(listener) : listener, { token: mode.startsWith('a1') ? 'tok_bench_0' : undefined });

/**
 * A4: `listener`, timing each request from its headers parsed to its answer written, in
 * this process; IPC `server-latencies` answers those since the last ask (`latencies`, ms)
 * and when each started (`starts`, epoch ms). Beside the runner's round trip, they tell
 * the handler's part from the time before it (the runner, the socket, this event loop).
 */
function timed(listener) {
  let latencies = [];
  let starts = [];
  process.on('message', (message) => {
    if (message?.type !== 'server-latencies') return;
    process.send({ type: 'server-latencies', id: message.id, latencies, starts });
    latencies = [];
    starts = [];
  });
  return (req, res) => {
    const started = performance.now();
    // Epoch ms, to line a request up with the runner's clock.
    starts.push(performance.timeOrigin + started);
    res.once('finish', () => latencies.push(performance.now() - started));
    listener(req, res);
  };
}
