// Tilecast for F2, a mixed fleet: transport-apns and transport-fcm at once (the reference
// server's setup), each pushing to its test double (BENCH_APNS_ORIGIN / BENCH_APNS_CA /
// BENCH_APNS_KEY and BENCH_FCM_ORIGIN / BENCH_FCM_CA / BENCH_FCM_ACCOUNT). Account `bench-0`
// (token `tok_bench_0`) with F2_APNS_DEVICES iPhones (a WidgetKit token each) and
// F2_FCM_DEVICES Android phones (a registration token each, kept in the store), and
// switchboard widgets `panel-<r>` (r < 64), one per fan-out (the per-widget throttle lets
// each one's first update through at once); account `quiet` (token `tok_quiet`) with a
// widget `load` and no devices, for the PATCH latency load. Every push goes to both
// transports: each sends to the devices with a token of its own and skips the others.
// IPC `await-pushes` {total} answers `pushes-done` once `total` pushes were sent (settled
// other than `skipped`) since start; `counters` answers both transports' counters.
import { createTilecast, silentLogger } from '@tilecast/core';
import { mount } from '@tilecast/adapter-node-http';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { apnsRegistryFrom, createApnsTransport } from '@tilecast/transport-apns';
import { createFcmTransport, fcmRegistryFrom } from '@tilecast/transport-fcm';
import { APNS_IDS, STREAMS, deviceToken, pushWaiter } from '../lib/apns-fleet.mjs';
import { F2_APNS_DEVICES, F2_FCM_DEVICES, registrationToken } from '../lib/fcm-fleet.mjs';
import { switchboardContent } from '../lib/payloads.mjs';
import { serve } from '../lib/serve.mjs';

const storage = createMemoryStorage();
const apns = createApnsTransport({
  ...APNS_IDS,
  signingKey: process.env.BENCH_APNS_KEY,
  registry: apnsRegistryFrom(storage),
  origin: process.env.BENCH_APNS_ORIGIN,
  ca: process.env.BENCH_APNS_CA,
  maxConcurrentStreams: STREAMS,
});
const fcm = createFcmTransport({
  serviceAccount: process.env.BENCH_FCM_ACCOUNT,
  registry: fcmRegistryFrom(storage),
  origin: process.env.BENCH_FCM_ORIGIN,
  tokenOrigin: process.env.BENCH_FCM_ORIGIN,
  ca: process.env.BENCH_FCM_CA,
  maxConcurrentStreams: STREAMS,
});
// A device of the other fleet is `skipped` at once by this transport: only the pushes sent count.
let sent = 0;
const check = pushWaiter(() => sent);
const onSettled = (outcome) => {
  if (outcome !== 'skipped') {
    sent++;
    check();
  }
  return outcome;
};
const onFailed = (error) => {
  sent++;
  check();
  throw error;
};
const counted = (transport) => ({
  name: transport.name,
  pushWidget: (id, push) => transport.pushWidget(id, push).then(onSettled, onFailed),
  pushActivity: (id, push) => transport.pushActivity(id, push).then(onSettled, onFailed),
});
const tilecast = createTilecast({ storage, logger: silentLogger, transport: [counted(apns), counted(fcm)] });
const m = tilecast.management;

await m.createAccount({ id: 'bench-0', token: 'tok_bench_0', activityQuota: 1 });
for (let r = 0; r < 64; r++) await m.createWidget({ account: 'bench-0', slug: `panel-${r}`, template: 'switchboard' });
for (let n = 0; n < F2_APNS_DEVICES; n++) {
  await m.registerDevice({ id: `iphone-${n}`, account: 'bench-0' });
  await storage.setApnsRegistration(`iphone-${n}`, { environment: 'production', widgets: deviceToken('widgets', n) });
}
for (let n = 0; n < F2_FCM_DEVICES; n++) {
  await m.registerDevice({ id: `android-${n}`, account: 'bench-0' });
  await storage.setFcmToken(`android-${n}`, registrationToken(n));
}
await m.createAccount({ id: 'quiet', token: 'tok_quiet', activityQuota: 1 });
await m.createWidget({ account: 'quiet', slug: 'load', template: 'switchboard' });
const first = await tilecast.handle({
  method: 'PATCH',
  path: '/widget/load',
  query: new URLSearchParams(),
  headers: { authorization: 'Token tok_quiet', 'content-type': 'application/json' },
  body: { kind: 'parsed', value: { content: switchboardContent() } },
});
if (first.status !== 200) throw new Error(`PATCH /widget/load answered ${first.status}`);

process.on('message', (message) => {
  if (message?.type === 'counters') process.send({ type: 'counters', id: message.id, counters: { apns: apns.counters(), fcm: fcm.counters() } });
});

await serve(mount({ '/': tilecast, '/device': tilecast.device }), { token: 'tok_bench_0' });
