// F1: Android phones through FCM (docs/contract/android-fcm.md), against transport-fcm's test
// double, placed as A1's processes are (scenarios/apns.mjs): the measured sender (Tilecast
// with transport-fcm, or the bare node:http2 client) alone on the server core; the double,
// which both senders push to, on the load core, niced. Its CPU busy share is reported (near
// 100 % it would be the bottleneck and hide the senders' difference).
import { publishHeaders, send } from '../lib/http.mjs';
import { F1_DEVICES, senderEnv, serviceAccount } from '../lib/fcm-fleet.mjs';
import { widgetBody } from '../lib/payloads.mjs';
import { LOAD_CPU, startServer } from '../lib/process.mjs';
import { round } from '../lib/stats.mjs';
import { compareSenders, fanOut, senderFigures, summarise } from './apns.mjs';

const pct = (ratio) => `${round(ratio * 100, 1)} %`;
const READY_MS = 180_000;

/** The double, in its own process on the load core (niced, as A1's). */
function startDouble(account) {
  return startServer('servers/fcm-double.mjs', {
    env: { BENCH_FCM_PUBLIC_KEY: account.publicKey, BENCH_FCM_CLIENT_EMAIL: account.serviceAccount.client_email },
    cpu: LOAD_CPU,
    launcher: ['nice', '-n', '10'],
  });
}

/** A sender: `bare` (the baseline) or `tilecast`. */
function startSender(kind, double, account) {
  const script = kind === 'bare' ? 'baselines/fcm-node-http.mjs' : 'servers/tilecast-fcm.mjs';
  const thread = process.env.BENCH_FCM_CONNECTION_THREAD;
  return startServer(script, { env: { ...senderEnv(double, account), ...(thread ? { BENCH_FCM_CONNECTION_THREAD: thread } : {}) }, readyTimeoutMs: READY_MS });
}

const patchOk = async (port, path, headers, body) => {
  const status = await send('PATCH', port, path, headers, body);
  if (status !== 200) throw new Error(`PATCH ${path} answered ${status}`);
};

export const f1 = {
  id: 'F1',
  title: `one widget update fanned out to ${F1_DEVICES} Android devices (FCM data messages) through transport-fcm to its test double, vs a bare node:http2 client`,
  async run({ quick }) {
    const account = serviceAccount();
    const double = await startDouble(account);
    try {
      const widgets = new Map();
      const samples = await compareSenders({
        runs: quick ? 1 : 3,
        warmups: 2,
        measured: quick ? 1 : 3,
        start: (kind) => startSender(kind, double, account),
        fan: (sender) => {
          const slug = `panel-${(widgets.get(sender) ?? 0) % 64}`;
          widgets.set(sender, (widgets.get(sender) ?? 0) + 1);
          return fanOut(sender, double, F1_DEVICES, () => patchOk(sender.port, `/widget/${slug}`, publishHeaders(sender), widgetBody()));
        },
      });
      const b = summarise(samples.bare);
      const t = summarise(samples.tilecast);
      const ratio = t.pushesPerSecond / b.pushesPerSecond;
      return {
        figures: senderFigures(b, t, samples, 'transport-fcm'),
        checks: [{ name: 'pushes/s vs bare client', value: pct(ratio), target: '>= 80.0 %', pass: ratio >= 0.8 }],
        raw: { samples },
      };
    } finally {
      await double.stop();
    }
  },
};
