// Baseline for F1: a bare node:http publisher (P1's handler) that pushes every accepted
// widget update to its devices with a bare node:http2 client: the same requests
// transport-fcm sends (one access token obtained at start with the same JWT-bearer grant,
// `POST /v1/projects/<project>/messages:send`, the same message bytes), over the same
// number of connections (CONNECTIONS) with the same streams open at once (STREAMS), and
// nothing else: no store, no retries, no counters, no superseding.
//   `PATCH /widget/<slug>` → a `changed` message to each of the F1_DEVICES tokens.
// IPC `await-pushes` {total}: answers once `total` pushes have been answered since start.
import { createPrivateKey, sign } from 'node:crypto';
import { connect } from 'node:http2';
import { pushWaiter } from '../lib/apns-fleet.mjs';
import { barePublisher } from '../lib/bare-publish.mjs';
import { CONNECTIONS, F1_DEVICES, STREAMS, registrationToken } from '../lib/fcm-fleet.mjs';
import { serve } from '../lib/serve.mjs';

const origin = process.env.BENCH_FCM_ORIGIN;
const ca = process.env.BENCH_FCM_CA;
const account = JSON.parse(process.env.BENCH_FCM_ACCOUNT);

const sessions = Array.from({ length: CONNECTIONS }, () => connect(origin, { ca }));
const authorization = `Bearer ${await accessToken()}`;
const path = `/v1/projects/${account.project_id}/messages:send`;

/** The access token, once, with the grant transport-fcm makes. */
async function accessToken() {
  const base64url = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const iat = Math.floor(Date.now() / 1000);
  const claims = { iss: account.client_email, scope: 'https://www.googleapis.com/auth/firebase.messaging', aud: `${origin}/token`, iat, exp: iat + 3600 };
  const unsigned = `${base64url({ alg: 'RS256', typ: 'JWT' })}.${base64url(claims)}`;
  const assertion = `${unsigned}.${sign('sha256', Buffer.from(unsigned), createPrivateKey(account.private_key)).toString('base64url')}`;
  const stream = sessions[0].request({ ':method': 'POST', ':path': '/token', 'content-type': 'application/x-www-form-urlencoded' });
  stream.end(`grant_type=${encodeURIComponent('urn:ietf:params:oauth:grant-type:jwt-bearer')}&assertion=${assertion}`);
  let text = '';
  for await (const chunk of stream) text += chunk;
  return JSON.parse(text).access_token;
}

const waiting = [];
let open = 0;
let answered = 0;
const check = pushWaiter(() => answered);

/** Queues one message; at most STREAMS per connection are open at once, first come first served. */
function push(token, body) {
  waiting.push({ token, body });
  pump();
}

function pump() {
  while (open < STREAMS * CONNECTIONS && waiting.length > 0) {
    const { token, body } = waiting.shift();
    open++;
    const session = sessions[token.charCodeAt(1) % CONNECTIONS]; // one device, one connection: its messages stay in order
    const stream = session.request({ ':method': 'POST', ':path': path, authorization, 'content-type': 'application/json' });
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

const tokens = Array.from({ length: F1_DEVICES }, (_, n) => registrationToken(n));

function pushWidget(url) {
  const slug = url.slice('/widget/'.length);
  const data = {
    tilecast: JSON.stringify({
      kind: 'widget',
      owner: 'bench-0',
      slug,
      event: 'changed',
      state: null,
      timestamp: Math.floor(Date.now() / 1000),
      dismissal_date: null,
    }),
  };
  const tail = `${JSON.stringify({ data, android: { collapse_key: `bench-0/${slug}`, priority: 'normal', ttl: '3600s' } }).slice(1)}}`;
  for (const token of tokens) push(token, `{"message":{"token":${JSON.stringify(token)},${tail}`);
}

await serve(barePublisher('widget', pushWidget));
