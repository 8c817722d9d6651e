import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryStorage } from '@tilecast/storage-memory';
import type { StoredEvent } from '../../src/storage/records.js';
import type { Storage } from '../../src/storage/storage.js';
import type { Logger } from '../../src/logger.js';
import type { ResolvedAddress } from '../../src/webhooks/address-guard.js';
import { createWebhookDispatcher, type WebhookDispatcher, type WebhookDispatcherOptions } from '../../src/webhooks/delivery.js';
import { verifyWebhook } from '../../src/webhooks/verify.js';
import { makeCertificates, startReceiver, status, type Receiver, type TestCertificates } from '../../../../test/support/tls-receiver.js';
import { createTestClock, until, type TestClock } from './support/test-clock.js';

const SECRET = 'CANARY-secret-delivery';
const HEADER_VALUE = 'CANARY-header-delivery';
const QUERY_VALUE = 'CANARY-query-delivery';

let certificates: TestCertificates;
beforeAll(() => {
  certificates = makeCertificates();
});

let receiver: Receiver;
let storage: Storage;
let clock: TestClock;
let lines: string[];
let logger: Logger;
const dispatchers: WebhookDispatcher[] = [];

beforeEach(async () => {
  receiver = await startReceiver(certificates);
  storage = createMemoryStorage();
  clock = createTestClock();
  lines = [];
  const keep = (level: string) => (message: string, fields?: Record<string, unknown>) => void lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
  logger = { info: keep('info'), warn: keep('warn'), error: keep('error') };
  await storage.upsertAccount({ id: 'acme', tokenHash: 'x'.repeat(64), subscription: 'active', activityQuota: 2 });
  await storage.putWidget({ accountId: 'acme', slug: 'lights', template: 'switchboard', staleAfter: null, privacy: 'visible' });
});

afterEach(async () => {
  for (const dispatcher of dispatchers.splice(0)) {
    dispatcher.close();
    await dispatcher.idle();
  }
  await receiver.close();
  for (const canary of [SECRET, HEADER_VALUE, QUERY_VALUE]) expect(lines.join('\n')).not.toContain(canary);
});

/** A dispatcher that trusts the test CA and reaches the receiver on its port (port 443, docs/contract/events-and-webhooks.md#webhook-public-https-443, cannot be bound in tests). */
function dispatcher(overrides: Partial<WebhookDispatcherOptions> = {}): WebhookDispatcher {
  const created = createWebhookDispatcher({
    storage,
    clock,
    logger,
    allowPrivateNetworks: true,
    ca: certificates.ca,
    unsafeTestOnlyDial: { port: receiver.port },
    ...overrides,
  });
  dispatchers.push(created);
  return created;
}

function event(data: { action: string; kind: 'button' | 'toggle'; value?: boolean } = { action: 'hall', kind: 'toggle', value: true }): StoredEvent {
  const id = randomUUID();
  const occurred = clock.now();
  const envelope = {
    id,
    request_id: 'press-"7"\\{{action}}',
    type: 'widget.action.v1',
    subject: { kind: 'widget', slug: 'lights' },
    occurred_at: new Date(occurred).toISOString(),
    expires_at: new Date(occurred + 5000).toISOString(),
    data,
  };
  return { position: 1, id, subject: 'widget/lights', type: 'widget.action.v1', expiresAt: occurred + 5000, envelope };
}

const setMap = (map: Record<string, unknown>) => storage.setWebhookMap('acme', 'lights', map);
const outcomes = async () => (await storage.getWebhookOutcomes('acme', 'lights'))['*'] ?? (await storage.getWebhookOutcomes('acme', 'lights')).hall;

async function deliver(d: WebhookDispatcher, e: StoredEvent): Promise<void> {
  d.dispatch('acme', 'lights', e);
  await d.idle();
}

describe('webhook delivery to a local HTTPS receiver', () => {
  it('sends the envelope, signed, with Idempotency-Key and Content-Type; verifyWebhook accepts it', async () => {
    await setMap({ '*': { url: `https://localhost/hook?token=${QUERY_VALUE}`, headers: { 'X-Api-Key': HEADER_VALUE }, secret: SECRET } });
    const d = dispatcher();
    const e = event();
    d.dispatch('acme', 'lights', e);
    expect(receiver.requests).toHaveLength(0); // dispatch returned before anything was sent
    await d.idle();

    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request!.method).toBe('POST');
    expect(request!.url).toBe(`https://localhost/hook?token=${QUERY_VALUE}`);
    expect(JSON.parse(request!.body)).toEqual(e.envelope);
    expect(request!.headers).toMatchObject({ 'content-type': 'application/json', 'idempotency-key': e.id, 'x-api-key': HEADER_VALUE });
    expect(request!.headers['x-svc-timestamp']).toBe(String(Math.floor(clock.now() / 1000)));
    expect(request!.headers['x-svc-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    await expect(
      verifyWebhook({ secret: SECRET, headers: request!.headers, method: request!.method, url: request!.url, body: request!.body, now: clock.now() }),
    ).resolves.toEqual({
      eventId: e.id,
      timestamp: Math.floor(clock.now() / 1000),
    });
    await expect(
      verifyWebhook({ secret: 'other', headers: request!.headers, method: request!.method, url: request!.url, body: request!.body, now: clock.now() }),
    ).rejects.toThrow();
    expect(await outcomes()).toEqual({ lastSuccessAt: new Date(clock.now()).toISOString(), lastFailureAt: null });
  });

  it('without a secret: no signing headers', async () => {
    await setMap({ '*': { url: 'https://localhost/plain' } });
    await deliver(dispatcher(), event());
    expect(receiver.requests[0]!.headers).not.toHaveProperty('x-svc-signature');
    expect(receiver.requests[0]!.headers).not.toHaveProperty('x-svc-timestamp');
  });

  it('fills every placeholder: text in the URL, JSON-escaped strings in the body, never twice', async () => {
    await setMap({
      '*': {
        url: 'https://localhost/{{slug}}/{{action}}?kind={{kind}}&value={{value}}&event={{event_id}}&subject={{subject}}',
        method: 'PATCH',
        body: {
          action: '{{action}}',
          kind: '{{kind}}',
          value: '{{value}}',
          slug: '{{slug}}',
          subject: '{{subject}}',
          id: '{{event_id}}',
          request: '{{request_id}}',
          event: '{{event_json}}',
          keep: [1, true, null],
        },
        secret: SECRET,
      },
    });
    const e = event();
    await deliver(dispatcher(), e);
    const [request] = receiver.requests;
    expect(request!.method).toBe('PATCH');
    expect(request!.url).toBe(`https://localhost/lights/hall?kind=toggle&value=true&event=${e.id}&subject=widget/lights`);
    const body = JSON.parse(request!.body);
    expect(body).toEqual({
      action: 'hall',
      kind: 'toggle',
      value: 'true',
      slug: 'lights',
      subject: 'widget/lights',
      id: e.id,
      request: 'press-"7"\\{{action}}',
      event: JSON.stringify(e.envelope),
      keep: [1, true, null],
    });
    await expect(
      verifyWebhook({ secret: SECRET, headers: request!.headers, method: 'PATCH', url: request!.url, body: request!.body, now: clock.now() }),
    ).resolves.toBeTruthy();
  });

  it('a button fills {{value}} with the empty string', async () => {
    await setMap({ '*': { url: 'https://localhost/b?v={{value}}', body: { v: '{{value}}' } } });
    await deliver(dispatcher(), event({ action: 'bell', kind: 'button' }));
    expect(receiver.requests[0]!.url).toBe('https://localhost/b?v=');
    expect(JSON.parse(receiver.requests[0]!.body)).toEqual({ v: '' });
  });

  it('GET sends no body and no Content-Type, and is signed over zero bytes', async () => {
    await setMap({
      '*': { url: 'https://localhost/get?a={{action}}', method: 'GET', body: { ignored: true }, headers: { 'Content-Type': 'text/plain' }, secret: SECRET },
    });
    await deliver(dispatcher(), event());
    const [request] = receiver.requests;
    expect(request!.method).toBe('GET');
    expect(request!.body).toBe('');
    expect(request!.headers).not.toHaveProperty('content-type');
    await expect(verifyWebhook({ secret: SECRET, headers: request!.headers, method: 'GET', url: request!.url, now: clock.now() })).resolves.toBeTruthy();
  });

  it('the entry of the action beats *; no matching entry sends nothing', async () => {
    await setMap({ hall: { url: 'https://localhost/hall' }, '*': { url: 'https://localhost/default' } });
    const d = dispatcher();
    await deliver(d, event());
    await deliver(d, event({ action: 'bell', kind: 'button' }));
    expect(receiver.requests.map((r) => r.url)).toEqual(['https://localhost/hall', 'https://localhost/default']);
    await setMap({ hall: { url: 'https://localhost/hall' } });
    await deliver(d, event({ action: 'bell', kind: 'button' }));
    expect(receiver.requests).toHaveLength(2);
    await setMap({});
    await deliver(d, event());
    expect(receiver.requests).toHaveLength(2);
  });

  it('an expired event is not delivered', async () => {
    await setMap({ '*': { url: 'https://localhost/late' } });
    const e = event();
    clock.advance(5000);
    await deliver(dispatcher(), e);
    expect(receiver.requests).toHaveLength(0);
  });

  it('two dispatchers sharing one store deliver each event to each entry once', async () => {
    await setMap({ '*': { url: 'https://localhost/once' } });
    const a = dispatcher({ instanceId: 'a' });
    const b = dispatcher({ instanceId: 'b' });
    const events = [event(), event(), event()];
    for (const e of events) {
      a.dispatch('acme', 'lights', e);
      b.dispatch('acme', 'lights', e);
    }
    await Promise.all([a.idle(), b.idle()]);
    expect(receiver.requests.map((r) => r.headers['idempotency-key']).sort()).toEqual(events.map((e) => e.id).sort());
  });
});

describe('retries', () => {
  beforeEach(() => setMap({ '*': { url: 'https://localhost/retry', secret: SECRET } }));

  it('503 then 200: one retry, same Idempotency-Key, fresh timestamp and signature; success recorded once', async () => {
    // The receiver takes 1.5 s to answer 503, so the retry is signed in a later second.
    receiver.script((_request, res) => {
      clock.advance(1500);
      status(503)(_request, res);
    });
    const e = event();
    await deliver(dispatcher(), e);
    expect(receiver.requests).toHaveLength(2);
    const [first, second] = receiver.requests;
    expect(first!.headers['idempotency-key']).toBe(e.id);
    expect(second!.headers['idempotency-key']).toBe(e.id);
    expect(Number(second!.headers['x-svc-timestamp'])).toBe(Number(first!.headers['x-svc-timestamp']) + 1);
    expect(second!.headers['x-svc-signature']).not.toBe(first!.headers['x-svc-signature']);
    for (const request of [first!, second!]) {
      await expect(
        verifyWebhook({ secret: SECRET, headers: request.headers, method: 'POST', url: request.url, body: request.body, now: clock.now() }),
      ).resolves.toBeTruthy();
    }
    expect(await outcomes()).toEqual({ lastSuccessAt: new Date(clock.now()).toISOString(), lastFailureAt: null });
  });

  it.each([408, 425, 429, 500, 502, 503, 504])('%i is retried', async (code) => {
    receiver.script(status(code));
    await deliver(dispatcher(), event());
    expect(receiver.requests).toHaveLength(2);
  });

  it.each([400, 401, 404, 422, 501, 505])('%i is final after one attempt, recorded as a failure', async (code) => {
    receiver.script(status(code));
    await deliver(dispatcher(), event());
    expect(receiver.requests).toHaveLength(1);
    expect(await outcomes()).toEqual({ lastSuccessAt: null, lastFailureAt: new Date(clock.now()).toISOString() });
  });

  it.each([301, 302, 303, 307, 308])('a %i redirect is not followed and not retried', async (code) => {
    receiver.script(status(code, { location: 'https://169.254.169.254/latest/meta-data' }));
    await deliver(dispatcher(), event());
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.connections()).toBe(1);
    expect((await outcomes())!.lastFailureAt).not.toBeNull();
  });

  it('two failures: still one outcome, a failure', async () => {
    receiver.script(status(500), status(500));
    await deliver(dispatcher(), event());
    expect(receiver.requests).toHaveLength(2);
    expect(await outcomes()).toEqual({ lastSuccessAt: null, lastFailureAt: new Date(clock.now()).toISOString() });
  });

  it('an answer after 2.5 s counts as a timeout and is retried', async () => {
    receiver.script((request, res) => {
      clock.advance(2500); // the attempt's 2 s deadline passes while the receiver works
      setTimeout(() => status(200)(request, res), 20);
    });
    await deliver(dispatcher(), event());
    expect(receiver.requests).toHaveLength(2);
    expect((await outcomes())!.lastSuccessAt).not.toBeNull();
  });

  it('a receiver that never answers: two attempts of 2 s, then a failure', async () => {
    const never = () => clock.advance(2000); // exactly the deadline; the response never comes
    receiver.script(never, never);
    await deliver(dispatcher(), event());
    expect(receiver.requests).toHaveLength(2);
    expect((await outcomes())!.lastFailureAt).not.toBeNull();
  });

  it('no retry when a whole attempt no longer fits before expiry', async () => {
    receiver.script((request, res) => {
      clock.advance(3001); // 3001 + 2000 > 5000
      status(503)(request, res);
    });
    await deliver(dispatcher(), event());
    expect(receiver.requests).toHaveLength(1);
  });

  it('Retry-After on 429 that fits: waits on the clock, then retries', async () => {
    receiver.script(status(429, { 'retry-after': '2' }));
    const d = dispatcher();
    d.dispatch('acme', 'lights', event());
    await until(() => clock.pendingDelays().includes(2000) && receiver.requests.length === 1, 'the Retry-After wait');
    expect(receiver.requests).toHaveLength(1);
    clock.advance(2000);
    await d.idle();
    expect(receiver.requests).toHaveLength(2);
    expect((await outcomes())!.lastSuccessAt).toBe(new Date(clock.now()).toISOString());
  });

  it('Retry-After as an HTTP date on 503', async () => {
    receiver.script(status(503, { 'retry-after': new Date(clock.now() + 1000).toUTCString() }));
    const d = dispatcher();
    d.dispatch('acme', 'lights', event());
    await until(() => clock.pendingDelays().includes(1000), 'the Retry-After wait');
    clock.advance(1000);
    await d.idle();
    expect(receiver.requests).toHaveLength(2);
  });

  it('Retry-After that does not fit before expiry: no retry', async () => {
    receiver.script(status(429, { 'retry-after': '4' })); // 4 s + a 2 s attempt > 5 s
    await deliver(dispatcher(), event());
    expect(receiver.requests).toHaveLength(1);
    expect((await outcomes())!.lastFailureAt).not.toBeNull();
  });

  it('reads at most 64 KiB of a huge answer and drops the rest', async () => {
    let written = 0;
    receiver.script((_request, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 120);
      const pump = (): void => {
        while (written < 64 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => undefined);
      pump();
    });
    await deliver(dispatcher(), event());
    expect((await outcomes())!.lastSuccessAt).not.toBeNull();
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it('deliveries one after another share one kept-alive connection (each answer is read to its end)', async () => {
    receiver.script((_request, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok '.repeat(1000)));
    const d = dispatcher();
    for (let i = 0; i < 3; i++) await deliver(d, event());
    expect(receiver.requests).toHaveLength(3);
    expect(receiver.connections()).toBe(1);
  });

  it('proxy environment variables do not route webhook traffic', async () => {
    const saved = { HTTPS_PROXY: process.env.HTTPS_PROXY, https_proxy: process.env.https_proxy };
    process.env.HTTPS_PROXY = process.env.https_proxy = 'http://127.0.0.1:9';
    try {
      await deliver(dispatcher(), event());
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    expect(receiver.requests).toHaveLength(1);
  });
});

describe('the address guard at delivery', () => {
  const resolverOf = (...answers: ResolvedAddress[][]) => {
    let call = 0;
    return async () => answers[Math.min(call++, answers.length - 1)]!;
  };

  it('a name resolving to loopback is refused: no connection, no retry, a failure', async () => {
    await setMap({ '*': { url: 'https://internal.test/hook' } });
    await deliver(
      dispatcher({ allowPrivateNetworks: false, resolve: resolverOf([{ address: '127.0.0.1', family: 4 }]), unsafeTestOnlyDial: { port: receiver.port } }),
      event(),
    );
    expect(receiver.connections()).toBe(0);
    expect((await outcomes())!.lastFailureAt).not.toBeNull();
    expect(lines.join('\n')).toContain('blocked');
    expect(lines.join('\n')).not.toContain('127.0.0.1');
  });

  it('mixed public and private answers are refused', async () => {
    await setMap({ '*': { url: 'https://internal.test/hook' } });
    const resolve = resolverOf([
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.1', family: 4 },
    ]);
    await deliver(dispatcher({ allowPrivateNetworks: false, resolve, unsafeTestOnlyDial: { address: '127.0.0.1', port: receiver.port } }), event());
    expect(receiver.connections()).toBe(0);
  });

  it('DNS rebinding: public on the first attempt, loopback on the retry → the retry is blocked', async () => {
    await setMap({ '*': { url: 'https://rebind.test/hook' } });
    receiver.script(status(503));
    const resolve = resolverOf([{ address: '93.184.216.34', family: 4 }], [{ address: '127.0.0.1', family: 4 }]);
    // The first, approved, attempt is redirected to the local receiver (test-only dial); the second never connects.
    await deliver(dispatcher({ allowPrivateNetworks: false, resolve, unsafeTestOnlyDial: { address: '127.0.0.1', port: receiver.port } }), event());
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.connections()).toBe(1);
    expect((await outcomes())!.lastFailureAt).not.toBeNull();
  });

  it('an IP-literal URL in a stored map is checked too (no lookup happens for literals)', async () => {
    await setMap({ '*': { url: 'https://127.0.0.1/hook' } });
    let asked = 0;
    const resolve = async () => {
      asked++;
      return [{ address: '93.184.216.34', family: 4 as const }];
    };
    await deliver(dispatcher({ allowPrivateNetworks: false, resolve }), event());
    expect(receiver.connections()).toBe(0);
    expect(asked).toBe(0);
  });

  it('a URL that breaks the rules once placeholders are filled is blocked', async () => {
    await setMap({ '*': { url: 'https://{{request_id}}/hook' } });
    await deliver(dispatcher(), event());
    expect(receiver.connections()).toBe(0);
    expect((await outcomes())!.lastFailureAt).not.toBeNull();
  });

  it('TLS is verified: a receiver whose CA is not trusted gets no request', async () => {
    await setMap({ '*': { url: 'https://localhost/hook' } });
    await deliver(dispatcher({ ca: undefined }), event());
    expect(receiver.requests).toHaveLength(0);
    expect((await outcomes())!.lastFailureAt).not.toBeNull();
  });
});
