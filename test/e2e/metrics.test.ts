/**
 * `@tilecast/metrics` end to end: a Tilecast instance on the Node adapter with the metrics
 * observer, a webhook receiver on loopback, and `/metrics` scraped over HTTP. Each step
 * moves exactly the series it should, by exactly the expected amount, and nothing a client
 * sent (token, header, body, path) ever shows up in a metric.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTilecastMetrics, type TilecastMetrics } from '@tilecast/metrics';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { request, startApi, type ApiServer } from '../support/api-server.js';
import { createCapturingLogger, seedFixture, switchboardContent, type Fixture } from '../support/fixtures.js';
import { openSse, type SseConnection } from '../support/sse-client.js';
import { makeCertificates, startReceiver, status, type Receiver, type TestCertificates } from '../support/tls-receiver.js';

/** Every sample of a scrape but histogram buckets and sums (durations vary): `name{labels}` → value. */
async function scrape(url: string): Promise<Map<string, number>> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  const samples = new Map<string, number>();
  for (const line of (await response.text()).split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const cut = line.lastIndexOf(' ');
    const series = line.slice(0, cut);
    if (/_bucket\{|_sum(\{|$)/.test(series)) continue;
    samples.set(series, Number(line.slice(cut + 1)));
  }
  return samples;
}

/** The series whose value changed between two scrapes, with the change. */
function changes(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const moved: Record<string, number> = {};
  for (const [series, value] of after) {
    const delta = value - (before.get(series) ?? 0);
    if (delta !== 0) moved[series] = delta;
  }
  return moved;
}

/** Serves the registry at `/metrics` on its own loopback port, as a host app would. */
async function serveMetrics(metrics: TilecastMetrics): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => {
    void metrics.registry.metrics().then((text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`, server };
}

const SECRET = 'CANARY-secret-5b1e';

describe('metrics through the Node adapter', () => {
  let certificates: TestCertificates;
  let receiver: Receiver;
  let api: ApiServer;
  let f: Fixture;
  let scrapeUrl: string;
  let scrapeServer: Server;
  let phone: SseConnection;
  let logLines: string[];

  beforeAll(() => {
    certificates = makeCertificates();
  });
  beforeEach(async () => {
    receiver = await startReceiver(certificates);
    const storage = createMemoryStorage();
    const metrics = createTilecastMetrics({ storage });
    const capture = createCapturingLogger();
    logLines = capture.lines;
    api = await startApi('node-http', {
      storage,
      observer: metrics.observer,
      logger: capture.logger,
      webhooks: { allowPrivateNetworks: true, ca: certificates.ca, unsafeTestOnlyDial: { port: receiver.port } },
    });
    ({ url: scrapeUrl, server: scrapeServer } = await serveMetrics(metrics));
    f = await seedFixture(api.tilecast);
    const put = await request(api, 'PUT', '/widget/lights/webhooks', {
      token: f.acme,
      body: { webhooks: { '*': { url: 'https://localhost/hook', secret: SECRET } } },
    });
    expect(put.status).toBe(200);
    // acme's phone listens on this instance; the guest phone the widget is shared with does not.
    phone = await openSse(`${api.url}/device/stream`, { authorization: `Device ${f.deviceToken}` });
    await api.tilecast.idle();
  });
  afterEach(async () => {
    phone.close();
    await api.close();
    await receiver.close();
    await new Promise<void>((resolve) => scrapeServer.close(() => resolve()));
  });

  it('a PATCH, its pushes, a press and its webhook delivery move exactly their series', async () => {
    const before = await scrape(scrapeUrl);
    expect(before.get('tilecast_open_streams{kind="device"}')).toBe(1);

    const patched = await request(api, 'PATCH', '/widget/lights', { token: f.acme, body: { content: switchboardContent() } });
    expect(patched.status).toBe(200);
    await api.tilecast.idle();
    const afterPatch = await scrape(scrapeUrl);
    expect(changes(before, afterPatch)).toEqual({
      'tilecast_http_requests_total{method="PATCH",route="/widget/{slug}",status="200"}': 1,
      'tilecast_http_request_duration_seconds_count{method="PATCH",route="/widget/{slug}",status="200"}': 1,
      // Two viewers: acme's phone (connected here) and the guest phone (not), through the
      // device stream and the host's transport (the test's recorder).
      'tilecast_device_pushes_total{transport="device_stream",kind="widget",outcome="delivered"}': 1,
      'tilecast_device_pushes_total{transport="device_stream",kind="widget",outcome="not_connected"}': 1,
      'tilecast_device_pushes_total{transport="host",kind="widget",outcome="delivered"}': 2,
      // The update's delivery job (docs/contract/durable-delivery.md#durable-outbox), done here.
      'tilecast_delivery_jobs_ended_total{kind="widget",outcome="done"}': 1,
    });

    const pressed = await request(api, 'POST', '/device/presses', {
      authorization: `Device ${f.deviceToken}`,
      body: { owner: 'acme', slug: 'lights', request_id: 'tap-1', action: 'hall', value: true },
    });
    expect(pressed.status).toBe(202);
    await api.tilecast.idle();
    expect(receiver.requests).toHaveLength(1);
    const afterPress = await scrape(scrapeUrl);
    expect(changes(afterPatch, afterPress)).toEqual({
      'tilecast_http_requests_total{method="POST",route="/device/presses",status="202"}': 1,
      'tilecast_http_request_duration_seconds_count{method="POST",route="/device/presses",status="202"}': 1,
      'tilecast_presses_total{outcome="accepted"}': 1,
      'tilecast_webhook_attempts_total{attempt="1",outcome="success"}': 1,
      'tilecast_webhook_deliveries_total{outcome="success",attempts="1"}': 1,
      tilecast_event_log_events: 1,
    });

    // The same press again is a duplicate: answered, not delivered again.
    expect(
      (
        await request(api, 'POST', '/device/presses', {
          authorization: `Device ${f.deviceToken}`,
          body: { owner: 'acme', slug: 'lights', request_id: 'tap-1', action: 'hall', value: true },
        })
      ).status,
    ).toBe(202);
    await api.tilecast.idle();
    expect(changes(afterPress, await scrape(scrapeUrl))).toEqual({
      'tilecast_http_requests_total{method="POST",route="/device/presses",status="202"}': 1,
      'tilecast_http_request_duration_seconds_count{method="POST",route="/device/presses",status="202"}': 1,
      'tilecast_presses_total{outcome="duplicate"}': 1,
    });
  });

  it('a webhook retried after a 500: one failed and one successful attempt, one delivery of two attempts', async () => {
    const patched = await request(api, 'PATCH', '/widget/lights', { token: f.acme, body: { content: switchboardContent() } });
    expect(patched.status).toBe(200);
    await api.tilecast.idle();
    const before = await scrape(scrapeUrl);
    receiver.script(status(500));
    const pressed = await request(api, 'POST', '/device/presses', {
      authorization: `Device ${f.deviceToken}`,
      body: { owner: 'acme', slug: 'lights', request_id: 'tap-retry', action: 'bell' },
    });
    expect(pressed.status).toBe(202);
    await api.tilecast.idle();
    expect(receiver.requests).toHaveLength(2);
    const moved = changes(before, await scrape(scrapeUrl));
    expect(Object.fromEntries(Object.entries(moved).filter(([series]) => series.startsWith('tilecast_webhook_')))).toEqual({
      'tilecast_webhook_attempts_total{attempt="1",outcome="http_error"}': 1,
      'tilecast_webhook_attempts_total{attempt="2",outcome="success"}': 1,
      'tilecast_webhook_deliveries_total{outcome="success",attempts="2"}': 1,
    });
  });

  it('a refused press, a method no route has and a closed stream', async () => {
    const before = await scrape(scrapeUrl);
    const refused = await request(api, 'POST', '/device/presses', {
      authorization: `Device ${f.deviceToken}`,
      body: { owner: 'acme', slug: 'lights', request_id: 'tap-2', action: 'nope' },
    });
    expect(refused.status).toBe(422);
    // A known path with a method it does not have: the core's 405, under the one unmatched label.
    expect((await request(api, 'DELETE', '/widget/lights', { token: f.acme })).status).toBe(405);
    phone.close();
    // The server sees the client leave on its own schedule: bounded wait for the gauge.
    let after = await scrape(scrapeUrl);
    for (let i = 0; i < 100 && after.get('tilecast_open_streams{kind="device"}') !== 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      after = await scrape(scrapeUrl);
    }
    expect(changes(before, after)).toEqual({
      'tilecast_http_requests_total{method="POST",route="/device/presses",status="422"}': 1,
      'tilecast_http_request_duration_seconds_count{method="POST",route="/device/presses",status="422"}': 1,
      'tilecast_presses_total{outcome="refused"}': 1,
      'tilecast_http_requests_total{method="DELETE",route="unmatched",status="405"}': 1,
      'tilecast_http_request_duration_seconds_count{method="DELETE",route="unmatched",status="405"}': 1,
      'tilecast_open_streams{kind="device"}': -1,
    });
  });

  it('no token, header value, body or path a client sent appears in any metric (canary)', async () => {
    const canaries = {
      token: 'CANARYtok7d41e9',
      header: 'CANARYhdr0c2f88',
      body: 'CANARYbody93aa1',
      path: 'CANARYpath51c6',
      query: 'CANARYqry2e7b0',
    };
    const headers = { 'x-canary': canaries.header };
    await fetch(`${api.url}/widget/lights?k=${canaries.query}`, {
      method: 'PATCH',
      headers: { ...headers, authorization: `Token ${canaries.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: { title: canaries.body } }),
    });
    await fetch(`${api.url}/widget/lights`, {
      method: 'PATCH',
      headers: { ...headers, authorization: `Token ${f.acme}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: { template: 'switchboard', title: canaries.body } }),
    });
    await fetch(`${api.url}/widget/${canaries.path}`, { method: 'PATCH', headers: { ...headers, authorization: `Token ${f.acme}` }, body: canaries.body });
    await fetch(`${api.url}/${canaries.path}/x`, { headers });
    await fetch(`${api.url}/device/presses`, {
      method: 'POST',
      headers: { ...headers, authorization: `Device ${canaries.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ owner: 'acme', slug: 'lights', request_id: canaries.body, action: 'hall', value: true }),
    });
    await fetch(`${api.url}/device/presses`, {
      method: 'POST',
      headers: { ...headers, authorization: `Device ${f.deviceToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ owner: 'acme', slug: 'lights', request_id: canaries.body, action: canaries.body }),
    });
    await api.tilecast.idle();
    const text = await (await fetch(scrapeUrl)).text();
    expect(text).toContain('tilecast_http_requests_total{method="PATCH",route="/widget/{slug}",status="401"} 1');
    const secrets = [...Object.values(canaries), f.acme, f.deviceToken, SECRET];
    for (const secret of secrets) expect(text, secret).not.toContain(secret);
    for (const secret of secrets) expect(logLines.join('\n'), secret).not.toContain(secret);
  });
});
