// A4: one Live Activity delivered by broadcast (docs/contract/broadcast-channels.md) to a
// fleet that follows channels, through transport-apns to its test double. Processes as in
// A1–A3 (scenarios/apns.mjs): Tilecast alone on the server cores, the double niced on the
// helper core, the runner's PATCH clock on the load core. One Tilecast process holds
// every account, so that the 1-device baseline and the fleet's updates are timed with the
// same heap: what differs between them is only how many devices follow the activity.
import { updateLabel, senderEnv, signingKeys } from '../lib/apns-fleet.mjs';
import { progressContent } from '../lib/payloads.mjs';
import { startServer } from '../lib/process.mjs';
import { percentile, round } from '../lib/stats.mjs';
import { READY_MS, patchOk, startDouble } from './apns.mjs';

/** The publisher's updates per second, and the target of the fleet's PATCH p99 over the 1-device activity's. */
export const A4_RATE = 5;
export const A4_LATENCY_TARGET = 1.3;
/** Waits for a start to 100,000 devices or a per-token fan-out (A1 sends about 5,000 pushes/s). */
const SETTLE_MS = 300_000;

/** Full and quick sizes: the broadcast game, and the per-token game it is compared with (extrapolated). */
const SIZES = {
  full: { devices: 100_000, updates: 100, warmups: 10, tokenDevices: 10_000, tokenUpdates: 5 },
  quick: { devices: 10_000, updates: 20, warmups: 5, tokenDevices: 2_000, tokenUpdates: 2 },
};

const headersOf = (account) => ({ 'content-type': 'application/json', authorization: `Token tok_${account}` });
const bodyOf = (sequence) => {
  const content = progressContent();
  content.header_left = { ...content.header_left, value: updateLabel(sequence) };
  return JSON.stringify({ state: 'ONGOING', content });
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once every job and push Tilecast started so far has settled. */
const idle = (sender) => sender.ask({ type: 'idle' }, 'idle', SETTLE_MS);
const summary = (double) => double.ask({ type: 'summary' }, 'summary');
const reset = (double) => double.ask({ type: 'reset' }, 'reset');

/**
 * `count` updates of the account's `live` at A4_RATE per second, on a fixed schedule (a
 * slow answer does not delay the next one); then waits until their jobs are done. Answers
 * each PATCH's latency (ms), the part of it spent in Tilecast's request handler and the
 * part before it (the runner's write, the socket, the server's event loop and CPU), and
 * the sender's CPU (µs) from the first to idle.
 */
async function updates(sender, account, count, firstSequence) {
  const sent = [];
  const latencies = [];
  const pending = [];
  await serverTimes(sender);
  const cpuBefore = await sender.cpu();
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    await sleep(Math.max(0, started + (i * 1000) / A4_RATE - performance.now()));
    const at = performance.now();
    sent.push(performance.timeOrigin + at);
    pending.push(patchOk(sender.port, '/activity/live', headersOf(account), bodyOf(firstSequence + i)).then(() => (latencies[i] = performance.now() - at)));
  }
  await Promise.all(pending);
  const { latencies: inServer, starts } = await serverTimes(sender);
  await idle(sender);
  // Paired in order: at A4_RATE, each PATCH is answered long before the next one is sent.
  const beforeServer = starts.length === count ? starts.map((start, i) => start - sent[i]) : [];
  return { latencies, inServer, beforeServer, cpuMicros: (await sender.cpu()) - cpuBefore };
}

/** Each request's time in Tilecast's handler (ms) and when it started (epoch ms), since the last ask. */
const serverTimes = (sender) => sender.ask({ type: 'server-latencies' }, 'server-latencies');

/** Registers `count` phones of `account` in the server, in bulk (no HTTP); answers heap bytes per phone after a full GC. */
async function register(sender, account, count, channels) {
  const before = (await sender.stats()).memory.heapUsed;
  await sender.ask({ type: 'register-a4', account, count, channels }, 'registered', SETTLE_MS);
  return ((await sender.stats()).memory.heapUsed - before) / count;
}

/** Starts the account's `live` and waits for its start pushes; checks `expected` arrived, all accepted, each naming a channel when `onChannel`. */
async function start(sender, double, account, expected, onChannel) {
  await reset(double);
  const started = performance.now();
  await patchOk(sender.port, '/activity/live', headersOf(account), bodyOf(0));
  await idle(sender);
  const ms = performance.now() - started;
  const got = await summary(double);
  const named = onChannel ? expected : 0;
  if (got.received !== expected || (got.statuses[200] ?? 0) !== expected || got.startsOnChannel !== named)
    throw new Error(`${account}: expected ${expected} start pushes accepted (${named} naming a channel), the double got ${JSON.stringify(got)}`);
  return ms;
}

/** The broadcast game on `account`: `count` updates; answers latencies, CPU, the double's per-token pushes and broadcasts on the channel. */
async function broadcastGame(sender, double, account, channel, count, firstSequence) {
  await reset(double);
  const run = await updates(sender, account, count, firstSequence);
  const got = await summary(double);
  return { ...run, perToken: got.received, broadcasts: got.broadcasts.byChannel[channel] ?? 0, allBroadcasts: got.broadcasts };
}

/** The per-token game: `count` updates to `devices` phones with update tokens, each fan-out settled before the next (none superseded). */
async function tokenGame(sender, double, devices, count) {
  await start(sender, double, 'tokens', 0, false);
  await register(sender, 'tokens', devices, false);
  await reset(double);
  const cpuBefore = await sender.cpu();
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    await patchOk(sender.port, '/activity/live', headersOf('tokens'), bodyOf(i + 1));
    await idle(sender);
  }
  const ms = performance.now() - started;
  const cpuMicros = (await sender.cpu()) - cpuBefore;
  const got = await summary(double);
  const expected = devices * count;
  if (got.received !== expected || (got.statuses[200] ?? 0) !== expected || got.outOfOrder !== 0)
    throw new Error(`tokens: expected ${expected} update pushes accepted in order, the double got ${JSON.stringify(got)}`);
  return { requests: got.received, cpuMicros, ms };
}

export const a4 = {
  id: 'A4',
  title:
    'one Live Activity on 100,000 devices that follow channels, 100 updates at 5/s by broadcast through transport-apns to its test double, vs the same activity on 1 device',
  async run({ quick }) {
    const size = quick ? SIZES.quick : SIZES.full;
    const keys = signingKeys();
    const double = await startDouble(keys);
    try {
      const sender = await startServer('servers/tilecast-apns.mjs', { args: ['a4'], env: senderEnv(double, keys), readyTimeoutMs: READY_MS });
      try {
        await register(sender, 'solo', 1, true);
        const registerStarted = performance.now();
        const bytesPerDevice = await register(sender, 'fleet', size.devices, true);
        const registerMs = performance.now() - registerStarted;
        await start(sender, double, 'solo', 1, true);
        const startMs = await start(sender, double, 'fleet', size.devices, true);
        const { channels } = await sender.ask({ type: 'channels' }, 'channels');
        // Unmeasured: the first updates of each would otherwise time the compiler, in the baseline's phase, which runs first.
        for (const account of ['solo', 'fleet']) await updates(sender, account, size.warmups, 1);
        const solo = await broadcastGame(sender, double, 'solo', channels.solo.production, size.updates, size.warmups + 1);
        const fleet = await broadcastGame(sender, double, 'fleet', channels.fleet.production, size.updates, size.warmups + 1);
        const tokens = await tokenGame(sender, double, size.tokenDevices, size.tokenUpdates);
        return figuresOf({ size, bytesPerDevice, registerMs, startMs, solo, fleet, tokens });
      } finally {
        await sender.stop();
      }
    } finally {
      await double.stop();
    }
  },
};

function figuresOf({ size, bytesPerDevice, registerMs, startMs, solo, fleet, tokens }) {
  const [p99Solo, p99Fleet] = [percentile(solo.latencies, 99), percentile(fleet.latencies, 99)];
  const ratio = p99Fleet / p99Solo;
  // The per-token game, measured on fewer devices and updates, scaled to the broadcast game's size.
  const scale = (size.devices * size.updates) / (size.tokenDevices * size.tokenUpdates);
  const tokenLabel = `per-token game, ${size.tokenDevices.toLocaleString('en')} devices × ${size.tokenUpdates} updates measured, × ${scale} (linear) to ${size.devices.toLocaleString('en')} × ${size.updates}`;
  const broadcastsPerUpdate = `${fleet.broadcasts} broadcasts, ${fleet.perToken} per-token pushes for ${size.updates} updates`;
  const p = (list, q) => round(percentile(list, q), 2);
  return {
    figures: {
      'devices following channels (production)': size.devices,
      'registered in bulk in the server; s': round(registerMs / 1000, 1),
      'heap bytes per device with channels and push-to-start (after full GC, as A3)': round(bytesPerDevice, 0),
      'start: push-to-start requests; s to settle': `${size.devices} (each naming the channel); ${round(startMs / 1000, 1)}`,
      [`PATCH p50 / p99 / max ms, 1 device, ${size.updates} updates at ${A4_RATE}/s`]: `${p(solo.latencies, 50)} / ${p(solo.latencies, 99)} / ${p(solo.latencies, 100)}`,
      [`PATCH p50 / p99 / max ms, ${size.devices} devices, same`]: `${p(fleet.latencies, 50)} / ${p(fleet.latencies, 99)} / ${p(fleet.latencies, 100)}`,
      'PATCH p99 ms before the handler / in it: 1 device; fleet': `${p(solo.beforeServer, 99)} / ${p(solo.inServer, 99)}; ${p(fleet.beforeServer, 99)} / ${p(fleet.inServer, 99)}`,
      'double, fleet updates': `${broadcastsPerUpdate}; all broadcasts ${JSON.stringify(fleet.allBroadcasts.statuses)}`,
      'double, 1-device updates': `${solo.broadcasts} broadcasts, ${solo.perToken} per-token pushes`,
      'broadcast game: requests; sender CPU s (1 device / fleet)': `${fleet.broadcasts}; ${round(solo.cpuMicros / 1e6, 2)} / ${round(fleet.cpuMicros / 1e6, 2)}`,
      [`${tokenLabel}: requests; sender CPU s`]: `${round(tokens.requests * scale, 0)}; ${round((tokens.cpuMicros / 1e6) * scale, 1)}`,
      'per-token game as measured: requests; sender CPU s; wall s': `${tokens.requests}; ${round(tokens.cpuMicros / 1e6, 2)}; ${round(tokens.ms / 1000, 1)}`,
    },
    checks: [
      {
        name: 'one broadcast per update, no per-token',
        value: `${fleet.broadcasts} / ${fleet.perToken}`,
        target: `${size.updates} / 0`,
        pass: fleet.broadcasts === size.updates && fleet.perToken === 0 && fleet.allBroadcasts.received === size.updates,
      },
      { name: 'PATCH p99 vs 1-device activity', value: `${round(ratio, 2)}×`, target: `<= ${A4_LATENCY_TARGET.toFixed(2)}×`, pass: ratio <= A4_LATENCY_TARGET },
    ],
    raw: { size, bytesPerDevice, registerMs, startMs, solo, fleet, tokens, p99Solo, p99Fleet },
  };
}
