// Tilecast for the FCM scenario (F1), with transport-fcm pushing to the double whose origin
// and CA come in BENCH_FCM_ORIGIN / BENCH_FCM_CA (service account: BENCH_FCM_ACCOUNT).
// Account `bench-0` (token `tok_bench_0`) with F1_DEVICES phones, each with a registration
// token, and switchboard widgets `panel-<r>` (r < 64), one per fan-out (the per-widget
// throttle lets each one's first update through at once). The tokens are in the transport's
// memory registry (`createMemoryFcmRegistry`), the registry a store without FCM tokens uses.
// BENCH_FCM_CONNECTION_THREAD=main puts the transport's connection on the main thread
// (diagnostics: the default, a niced worker thread, is what F1 measures).
// IPC `await-pushes` {total} answers `pushes-done` once `total` pushes have settled since
// start; `counters` answers the transport's counters.
import { createTilecast, silentLogger } from '@tilecast/core';
import { mount } from '@tilecast/adapter-node-http';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { createFcmTransport, createMemoryFcmRegistry } from '@tilecast/transport-fcm';
import { pushWaiter } from '../lib/apns-fleet.mjs';
import { F1_DEVICES, STREAMS, registrationToken } from '../lib/fcm-fleet.mjs';
import { serve } from '../lib/serve.mjs';

const storage = createMemoryStorage();
const registry = createMemoryFcmRegistry();
const fcm = createFcmTransport({
  serviceAccount: process.env.BENCH_FCM_ACCOUNT,
  registry,
  origin: process.env.BENCH_FCM_ORIGIN,
  tokenOrigin: process.env.BENCH_FCM_ORIGIN,
  ca: process.env.BENCH_FCM_CA,
  maxConcurrentStreams: STREAMS,
  connectionThread: process.env.BENCH_FCM_CONNECTION_THREAD === 'main' ? 'main' : 'worker',
});
let settled = 0;
const check = pushWaiter(() => settled);
// Counts each push as it settles, passing its outcome on (shared handlers, as the APNs server's).
const onSent = () => {
  settled++;
  check();
};
const onFailed = (error) => {
  onSent();
  throw error;
};
const counted = (push) => push.then(onSent, onFailed);
const tilecast = createTilecast({
  storage,
  logger: silentLogger,
  transport: { name: 'fcm', pushWidget: (id, push) => counted(fcm.pushWidget(id, push)), pushActivity: (id, push) => counted(fcm.pushActivity(id, push)) },
});
const m = tilecast.management;

await m.createAccount({ id: 'bench-0', token: 'tok_bench_0', activityQuota: 1 });
for (let r = 0; r < 64; r++) await m.createWidget({ account: 'bench-0', slug: `panel-${r}`, template: 'switchboard' });
for (let n = 0; n < F1_DEVICES; n++) {
  await m.registerDevice({ id: `phone-${n}`, account: 'bench-0' });
  registry.register(`phone-${n}`, registrationToken(n));
}
process.on('message', (message) => {
  if (message?.type === 'counters') process.send({ type: 'counters', id: message.id, counters: fcm.counters(), load: fcm.load() });
});

await serve(mount({ '/': tilecast, '/device': tilecast.device }), { token: 'tok_bench_0' });
