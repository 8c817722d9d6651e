// What the APNs scenarios (A1–A4) share: the app's ids, the signing key, the
// devices' tokens and the connection settings both senders use, so that the bare client
// and Tilecast's transport push the same requests to the same test double.
import { createHash, generateKeyPairSync } from 'node:crypto';

/** The app both senders push for and the double checks (team, key id, bundle id). */
export const APNS_IDS = { teamId: 'TEAMBENCH1', keyId: 'KEYBENCH01', bundleId: 'com.tilecast.bench' };

/**
 * HTTP/2 connections per origin and streams open at once on each, for both senders:
 * transport-apns's defaults (one connection, 100 streams), which the bare client copies.
 */
export const CONNECTIONS = 1;
export const STREAMS = 100;

/** A1: one widget update to this many devices with a WidgetKit token. */
export const A1_DEVICES = 10_000;
/** A2: this many activities (one per account), each shown on A2_DEVICES_PER_ACTIVITY devices. */
export const A2_ACTIVITIES = 1_000;
export const A2_DEVICES_PER_ACTIVITY = 10;

/**
 * A4: the accounts of Tilecast's server (each with one progress activity `live`) and how
 * `live` is delivered: `solo` (the 1-device baseline) and `fleet` by broadcast, `tokens`
 * per token (the comparison).
 */
export const A4_ACCOUNTS = [
  ['solo', 'broadcast'],
  ['fleet', 'broadcast'],
  ['tokens', 'tokens'],
];

/** The APNs token (64 hex characters) of device `n` of a fleet (`widgets`, `activity`...). */
export const deviceToken = (fleet, n) => createHash('sha256').update(`${fleet}-${n}`).digest('hex');

/** A fresh ES256 key pair for a run: the senders sign with the private half, the double checks the public one. */
export function signingKeys() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** The environment that points a sender (bare or Tilecast) at the double. */
export const senderEnv = (double, keys) => ({ BENCH_APNS_ORIGIN: double.origin, BENCH_APNS_CA: double.ca, BENCH_APNS_KEY: keys.privatePem });

/** Sequence number of an A2 update, carried in its content so that arrival order can be checked. */
export const updateLabel = (sequence) => `Update ${sequence}`;
export const sequenceOf = (label) => Number(/(\d+)$/.exec(String(label))?.[1] ?? Number.NaN);

/**
 * Answers the runner's `stats` IPC requests (as `serve()` does) and `await-pushes`: answers
 * once `settled()` reaches `total`. `onSettle` is to be called whenever a push settles.
 */
export function pushWaiter(settled) {
  const waiting = [];
  process.on('message', (message) => {
    if (message?.type !== 'await-pushes') return;
    waiting.push(message);
    check();
  });
  const check = () => {
    for (let i = waiting.length - 1; i >= 0; i--) {
      if (settled() < waiting[i].total) continue;
      const [done] = waiting.splice(i, 1);
      process.send({ type: 'pushes-done', id: done.id, at: performance.now() });
    }
  };
  return check;
}
