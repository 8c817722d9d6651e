// Tilecast for the stream scenarios: argv[2] accounts `bench-<n>` with API token
// `tok_bench_<n>`, a device `dev_bench_<n>` and a switchboard widget `panel` with a
// button `go`. IPC `inject` appends events straight to the log and wakes the streams the
// way another instance's append would (through the store's `subscribeEvents`).
import { createTilecast, silentLogger } from '@tilecast/core';
import { mount } from '@tilecast/adapter-node-http';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { serve } from '../lib/serve.mjs';

const accounts = Number(process.argv[2] ?? 1);
const storage = createMemoryStorage();
const wakeListeners = new Set();
storage.subscribeEvents = (listener) => (wakeListeners.add(listener), () => wakeListeners.delete(listener));
const tilecast = createTilecast({ storage, logger: silentLogger });
const m = tilecast.management;
for (let n = 0; n < accounts; n++) {
  const id = `bench-${n}`;
  await m.createAccount({ id, token: `tok_bench_${n}`, activityQuota: 1 });
  await m.registerDevice({ id: `phone-${n}`, account: id, token: `dev_bench_${n}` });
  await m.createWidget({ account: id, slug: 'panel', template: 'switchboard' });
  await storage.setWidgetContent(id, 'panel', { content: { template: 'switchboard', actions: [{ id: 'go', label: 'Go', kind: 'button' }] }, staleAfter: undefined, now: Date.now() });
}

process.on('message', async (message) => {
  if (message?.type !== 'inject') return;
  const { account, count, padding, eventId } = message;
  for (let i = 0; i < count; i++) {
    const now = Date.now();
    const id = eventId ?? `${account}-${i}`;
    await storage.appendEvent(account, { id, subject: 'widget/panel', type: 'widget.action.v1', expiresAt: now + 60_000, envelope: { id, padding } });
    for (const listener of wakeListeners) listener(account);
  }
  process.send({ type: 'injected', id: message.id });
});

await serve(mount({ '/': tilecast, '/device': tilecast.device }));
