// Baseline for A1 and A2: a bare node:http publisher (P1's and P3's handler) that pushes
// every accepted update to its devices with a bare node:http2 client: the same requests
// transport-apns sends (path, apns-* headers, one provider token signed at start, the same
// payload shapes), over the same number of connections (CONNECTIONS) with the same streams
// open at once (STREAMS), and nothing else: no store, no retries, no counters.
//   a1: `PATCH /widget/<slug>` → a widgets push to each of the A1_DEVICES tokens.
//   a2: `PATCH /activity/a2-<n>/trip` → a Live Activity update to the activity's
//       A2_DEVICES_PER_ACTIVITY tokens (its timestamp never goes back, as in the transport).
// IPC `await-pushes` {total}: answers once `total` pushes have been answered since start.
import { sign } from 'node:crypto';
import { connect } from 'node:http2';
import { A1_DEVICES, A2_DEVICES_PER_ACTIVITY, APNS_IDS, CONNECTIONS, STREAMS, deviceToken, pushWaiter } from '../lib/apns-fleet.mjs';
import { barePublisher } from '../lib/bare-publish.mjs';
import { serve } from '../lib/serve.mjs';

const mode = process.argv[2];
const origin = process.env.BENCH_APNS_ORIGIN;
const ca = process.env.BENCH_APNS_CA;

const base64url = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
const unsigned = `${base64url({ alg: 'ES256', kid: APNS_IDS.keyId })}.${base64url({ iss: APNS_IDS.teamId, iat: Math.floor(Date.now() / 1000) })}`;
const signature = sign('sha256', Buffer.from(unsigned), { key: process.env.BENCH_APNS_KEY, dsaEncoding: 'ieee-p1363' }).toString('base64url');
const authorization = `bearer ${unsigned}.${signature}`;

const sessions = Array.from({ length: CONNECTIONS }, () => connect(origin, { ca }));
const waiting = [];
let open = 0;
let answered = 0;
const check = pushWaiter(() => answered);

/** Queues one push; at most STREAMS per connection are open at once, first come first served. */
function push(token, headers, body) {
  waiting.push({ token, headers, body });
  pump();
}

function pump() {
  while (open < STREAMS * CONNECTIONS && waiting.length > 0) {
    const { token, headers, body } = waiting.shift();
    open++;
    const session = sessions[token.charCodeAt(0) % CONNECTIONS]; // one device, one connection: its pushes stay in order
    const stream = session.request({ ':method': 'POST', ':path': `/3/device/${token}`, authorization, ...headers });
    stream.on('response', () => {});
    stream.resume();
    stream.on('close', () => {
      open--;
      answered++;
      check();
      pump();
    });
    stream.end(body);
  }
}

const expiration = () => String(Math.floor(Date.now() / 1000) + 3600);
const WIDGETS_BODY = JSON.stringify({ aps: { 'content-changed': true } });
const widgetTokens = Array.from({ length: A1_DEVICES }, (_, n) => deviceToken('widgets', n));

function pushWidget() {
  const headers = { 'apns-push-type': 'widgets', 'apns-topic': `${APNS_IDS.bundleId}.push-type.widgets`, 'apns-expiration': expiration() };
  for (const token of widgetTokens) push(token, headers, WIDGETS_BODY);
}

const lastTimestamp = new Map();
function pushActivity(url, body, content) {
  const n = Number(/^\/activity\/a2-(\d+)\//.exec(url)[1]);
  const timestamp = Math.max(lastTimestamp.get(n) ?? 0, Math.floor(Date.now() / 1000));
  lastTimestamp.set(n, timestamp);
  const payload = JSON.stringify({ aps: { timestamp, event: 'update', 'content-state': { state: body.state, content } } });
  const headers = {
    'apns-push-type': 'liveactivity',
    'apns-topic': `${APNS_IDS.bundleId}.push-type.liveactivity`,
    'apns-priority': '10',
    'apns-expiration': expiration(),
  };
  for (let j = 0; j < A2_DEVICES_PER_ACTIVITY; j++) push(deviceToken('activity', n * A2_DEVICES_PER_ACTIVITY + j), headers, payload);
}

const publish = mode === 'a1' ? barePublisher('widget', pushWidget) : barePublisher('activity', pushActivity);
await serve((req, res) => publish(req, res));
