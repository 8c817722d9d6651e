// A1P and A2P: A1's and A2's fan-outs with Tilecast's store on PostgreSQL
// (docs/contract/durable-delivery.md): every PATCH writes its delivery job with the content,
// the accepting instance claims it and records progress per batch of devices, and the
// transport reads every device's tokens from the store. The bare node:http2 client stays
// as in A1 and A2 (it has no store). Placement, the double and the figures are A1's and
// A2's (scenarios/apns.mjs); each Tilecast process starts on an empty schema at
// DATABASE_URL into which the fleet is written in bulk (lib/apns-postgres.mjs).
import { A1_DEVICES, A2_ACTIVITIES, A2_DEVICES_PER_ACTIVITY, signingKeys } from '../lib/apns-fleet.mjs';
import { publishHeaders } from '../lib/http.mjs';
import { withPostgresCpu } from '../lib/postgres-cpu.mjs';
import { median, round } from '../lib/stats.mjs';
import { widgetBody } from '../lib/payloads.mjs';
import { DATABASE_URL, activityBurst, compareSenders, fanOut, patchOk, pct, senderFigures, startDouble, summarise } from './apns.mjs';

const database = DATABASE_URL.replace(/\/\/[^@]*@/, '//');
const A2_DEVICES = A2_ACTIVITIES * A2_DEVICES_PER_ACTIVITY;

export const a1p = {
  id: 'A1P',
  title: `A1's fan-out (one widget update to ${A1_DEVICES} devices) with Tilecast's store on PostgreSQL (${database}), delivery jobs on, vs the bare node:http2 client; without A1's PATCH latency phase`,
  async run({ quick }) {
    const keys = signingKeys();
    const double = await startDouble(keys);
    try {
      const widgets = new Map();
      const samples = await compareSenders({
        mode: 'a1',
        store: 'postgres',
        double,
        keys,
        runs: quick ? 1 : 3,
        warmups: 2,
        measured: quick ? 1 : 3,
        fan: (sender, kind) => {
          // A widget not updated before in this process: its throttle lets the update through at once.
          const slug = `panel-${(widgets.get(sender) ?? 0) % 64}`;
          widgets.set(sender, (widgets.get(sender) ?? 0) + 1);
          const fan = () => fanOut(sender, double, A1_DEVICES, () => patchOk(sender.port, `/widget/${slug}`, publishHeaders(sender), widgetBody()));
          return kind === 'bare' ? fan() : withPostgresCpu(A1_DEVICES, fan);
        },
      });
      const b = summarise(samples.bare);
      const t = summarise(samples.tilecast);
      const ratio = t.pushesPerSecond / b.pushesPerSecond;
      return {
        figures: { ...senderFigures(b, t, samples), ...postgresFigure(samples) },
        checks: [{ name: 'pushes/s vs bare client', value: pct(ratio), target: '>= 80.0 %', pass: ratio >= 0.8 }],
        raw: { samples },
      };
    } finally {
      await double.stop();
    }
  },
};

/** The PostgreSQL server's CPU per push during Tilecast's measured fan-outs (median; every backend, the store's share of the machine). */
function postgresFigure(samples) {
  const values = samples.tilecast.map((s) => s.postgresCpuMicrosPerPush).filter((v) => v !== null && v !== undefined);
  return values.length === 0 ? {} : { 'PostgreSQL CPU µs per push (tilecast)': round(median(values), 1) };
}

/** Answers the sender's pushes settled so far, once every job and push it started is done. */
const settledWhenIdle = async (sender) => (await sender.ask({ type: 'idle' }, 'idle', 300_000)).settled;
const transportSuperseded = async (sender) => (await sender.ask({ type: 'counters' }, 'counters')).counters?.superseded ?? 0;

/**
 * A2's burst through Tilecast on PostgreSQL, timed from the first PATCH until every job and
 * push is done. A job a newer update of its activity replaced may end before handing all
 * its devices over (docs/contract/durable-delivery.md#durable-supersede), so the burst's
 * `count` pushes do not all settle: as in A2, the ones never sent because a newer update
 * of the device and activity replaced them count as superseded, whether the job or the
 * transport dropped them. Checks at the double that every push sent arrived and was
 * accepted, and that every device got one (its last update: `behindLatest`).
 */
async function burstToLatest(sender, double, count, trigger) {
  await double.ask({ type: 'reset' }, 'reset');
  const [settledBefore, supersededBefore] = [await settledWhenIdle(sender), await transportSuperseded(sender)];
  const [senderCpu, doubleCpu] = [await sender.cpu(), await double.cpu()];
  const started = performance.now();
  await trigger();
  const settled = (await settledWhenIdle(sender)) - settledBefore;
  const ms = performance.now() - started;
  const [senderAfter, doubleAfter] = [await sender.cpu(), await double.cpu()];
  const summary = await double.ask({ type: 'summary' }, 'summary');
  const sent = settled - ((await transportSuperseded(sender)) - supersededBefore);
  if (summary.received !== sent || summary.statuses[200] !== sent || summary.devices !== A2_DEVICES)
    throw new Error(`expected ${sent} pushes accepted (${settled} settled), to all ${A2_DEVICES} devices; the double got ${JSON.stringify(summary)}`);
  return {
    pushesPerSecond: count / (ms / 1000),
    sentPerSecond: sent / (ms / 1000),
    ms,
    senderBusy: (senderAfter - senderCpu) / 1000 / ms,
    senderCpuMicrosPerPush: (senderAfter - senderCpu) / count,
    doubleBusy: (doubleAfter - doubleCpu) / 1000 / ms,
    outOfOrder: summary.outOfOrder,
    behindLatest: summary.behindLatest,
    superseded: count - sent,
    example: summary.example,
    peakStreams: summary.peakOpenStreams ?? null,
    connections: summary.connections ?? null,
  };
}

export const a2p = {
  id: 'A2P',
  title: `A2's bursts (${A2_ACTIVITIES} Live Activities, each on ${A2_DEVICES_PER_ACTIVITY} devices) with Tilecast's store on PostgreSQL (${database}), delivery jobs on, vs the bare node:http2 client`,
  async run({ quick }) {
    const keys = signingKeys();
    const double = await startDouble(keys);
    const rounds = 3;
    const pushes = rounds * A2_DEVICES;
    try {
      const sequences = new Map();
      const samples = await compareSenders({
        mode: 'a2',
        store: 'postgres',
        double,
        keys,
        runs: quick ? 1 : 3,
        warmups: 1,
        measured: quick ? 1 : 2,
        fan: (sender, kind) => {
          const first = sequences.get(sender) ?? 1;
          sequences.set(sender, first + rounds);
          const burst = activityBurst(sender, kind, rounds, first);
          return kind === 'bare' ? fanOut(sender, double, pushes, burst) : withPostgresCpu(pushes, () => burstToLatest(sender, double, pushes, burst));
        },
      });
      const b = summarise(samples.bare);
      const t = summarise(samples.tilecast);
      const ratio = t.pushesPerSecond / b.pushesPerSecond;
      const example = samples.tilecast.find((s) => s.example !== null)?.example;
      return {
        figures: {
          [`pushes per burst (${rounds} updates × ${A2_ACTIVITIES} activities × ${A2_DEVICES_PER_ACTIVITY} devices)`]: pushes,
          ...senderFigures(b, t, samples),
          ...postgresFigure(samples),
          'pushes out of order: bare / tilecast': `${b.outOfOrder} / ${t.outOfOrder}${example ? ` (e.g. ${JSON.stringify(example)})` : ''}`,
          'tilecast pushes superseded per burst (median; never sent, a newer update of the device and activity replaced them in the job or the transport)':
            t.superseded,
          'tilecast pushes sent/s (the superseded left out)': t.sentPerSecond,
          'devices not ending on the last update: bare / tilecast': `${b.behindLatest} / ${t.behindLatest}`,
        },
        checks: [
          { name: 'pushes/s vs bare client', value: pct(ratio), target: '>= 80.0 %', pass: ratio >= 0.8 },
          { name: "every device's pushes in order", value: `${t.outOfOrder} out of order`, target: '0', pass: t.outOfOrder === 0 },
          { name: 'every device ends on the last update', value: `${t.behindLatest} behind`, target: '0', pass: t.behindLatest === 0 },
        ],
        raw: { samples },
      };
    } finally {
      await double.stop();
    }
  },
};
