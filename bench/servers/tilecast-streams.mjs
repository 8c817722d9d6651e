// Tilecast for the stream scenarios: argv[2] accounts `bench-<n>` with API token
// `tok_bench_<n>`, a device `dev_bench_<n>` and a switchboard widget `panel` with a
// button `go`. IPC `inject` appends events straight to the log and wakes the streams the
// way another instance's append would (through the store's `subscribeEvents`).
import { createTilecast, silentLogger } from '@tilecast/core';
import { mount } from '@tilecast/adapter-node-http';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { serve } from '../lib/serve.mjs';

const accounts = Number(process.argv[2] ?? 1);
/** Extra phones of account 0 (`dev_s3_<i>`), for the device broadcast scenario. */
const extraDevices = Number(process.argv[3] ?? 0);
const storage = createMemoryStorage();
const wakeListeners = new Set();
storage.subscribeEvents = (listener) => (wakeListeners.add(listener), () => wakeListeners.delete(listener));
// W1: webhooks to a local HTTPS receiver (loopback allowed, its CA trusted).
const webhook = process.env.BENCH_WEBHOOK_URL
  ? { url: process.env.BENCH_WEBHOOK_URL, secret: process.env.BENCH_WEBHOOK_SECRET, ca: process.env.BENCH_WEBHOOK_CA }
  : undefined;
// BENCH_PERIODIC=off (bench/tools/cost-check.mjs): no work on timers (purge rounds, credential
// re-checks, pings), whose amount grows with how long a count takes on a loaded machine.
const periodic = process.env.BENCH_PERIODIC === 'off' ? { purgeIntervalMs: 0, credentialCheckMs: 3_600_000, sse: { pingMs: 3_600_000 } } : {};
const tilecast = createTilecast({
  storage,
  logger: silentLogger,
  ...periodic,
  webhooks: webhook ? { allowPrivateNetworks: true, ca: webhook.ca } : undefined,
});
const m = tilecast.management;
for (let n = 0; n < accounts; n++) {
  const id = `bench-${n}`;
  await m.createAccount({ id, token: `tok_bench_${n}`, activityQuota: 1 });
  await m.registerDevice({ id: `phone-${n}`, account: id, token: `dev_bench_${n}` });
  await m.createWidget({ account: id, slug: 'panel', template: 'switchboard' });
  await storage.setWidgetContent(id, 'panel', {
    content: { template: 'switchboard', actions: [{ id: 'go', label: 'Go', kind: 'button' }] },
    staleAfter: undefined,
    now: Date.now(),
  });
  if (webhook) await putWebhook(n);
}

/** Configures account n's `panel` webhook through the API, as an owner would. */
async function putWebhook(n) {
  const result = await tilecast.handle({
    method: 'PUT',
    path: '/widget/panel/webhooks',
    query: new URLSearchParams(),
    headers: { authorization: `Token tok_bench_${n}`, 'content-type': 'application/json' },
    body: { kind: 'parsed', value: { webhooks: { '*': { url: webhook.url, secret: webhook.secret } } } },
  });
  if (result.status !== 200) throw new Error(`webhook PUT answered ${result.status}: ${JSON.stringify(result.body)}`);
}

for (let i = 0; i < extraDevices; i++) await m.registerDevice({ id: `s3-phone-${i}`, account: 'bench-0', token: `dev_s3_${i}` });

process.on('message', async (message) => {
  if (message?.type !== 'inject') return;
  const { account, count, padding, eventId } = message;
  for (let i = 0; i < count; i++) {
    const now = Date.now();
    const id = eventId ?? `${account}-${i}`;
    await storage.appendEvent(account, { id, subject: 'widget/panel', type: 'widget.action.v1', expiresAt: now + 60_000, envelope: { id, padding } });
    for (const listener of wakeListeners) listener(account);
    // Arrivals come over time, not in one task: let I/O in between batches, or the
    // injection loop itself (all microtasks) would hold the event loop for the whole flood.
    if (i % 50 === 49) await new Promise((resolve) => setImmediate(resolve));
  }
  process.send({ type: 'injected', id: message.id });
});

await serve(mount({ '/': tilecast, '/device': tilecast.device }));
