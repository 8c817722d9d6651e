import { createTilecast, silentLogger } from '@tilecast/core';
import { createMemoryStorage } from '@tilecast/storage-memory';

/**
 * A Tilecast on the memory store with `accounts` accounts (`bench-<n>`, a phone with device
 * token `dev_bench_<n>`, a switchboard widget `panel` with a button `go`), on a clock that
 * moves only when every account has pressed once (so that the buckets refill), and a
 * `press()` that sends the next account's press through `device.handle()`: no sockets.
 */
export async function inProcessPresses(accounts = 1000) {
  let t = Date.now();
  const clock = { now: () => t, setTimeout: (fn, ms) => setTimeout(fn, ms).unref(), clearTimeout: (h) => clearTimeout(h) };
  const storage = createMemoryStorage();
  const tilecast = createTilecast({ storage, clock, logger: silentLogger, purgeIntervalMs: 0 });
  const m = tilecast.management;
  for (let n = 0; n < accounts; n++) {
    await m.createAccount({ id: `bench-${n}`, token: `tok_bench_${n}` });
    await m.registerDevice({ id: `phone-${n}`, account: `bench-${n}`, token: `dev_bench_${n}` });
    await m.createWidget({ account: `bench-${n}`, slug: 'panel', template: 'switchboard' });
    await storage.setWidgetContent(`bench-${n}`, 'panel', {
      content: { template: 'switchboard', actions: [{ id: 'go', label: 'Go', kind: 'button' }] },
      staleAfter: undefined,
      now: t,
    });
  }
  let i = 0;
  /** One accepted press; resolves with the answer's body as sent. */
  return async function press() {
    const n = i++ % accounts;
    if (n === 0) t += 1000; // refill the buckets
    const bytes = Buffer.from(JSON.stringify({ owner: `bench-${n}`, slug: 'panel', request_id: `r-${i}`, action: 'go' }));
    const result = await tilecast.device.handle({
      method: 'POST',
      path: '/presses',
      query: new URLSearchParams(''),
      headers: { 'content-type': 'application/json', authorization: `Device dev_bench_${n}` },
      body: { kind: 'raw', read: async () => bytes },
    });
    if (result.status !== 202) throw new Error(JSON.stringify(result));
    return JSON.stringify(result.body);
  };
}
