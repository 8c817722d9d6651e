/**
 * Metrics and logs of the reference server: `/metrics` on the main port or its own, the
 * request log line, the settings, and a canary: a token, a header value, a body and a path
 * sent by clients appear in no log line and no metric.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, readConfig } from '../src/config.js';
import { startReferenceServer, type ReferenceServer } from '../src/index.js';
import { compactLine, pinoLogger } from '../src/logging.js';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));

/** A pino logger writing into `lines` (one JSON line each), bridged to the core's Logger. */
function capturedLogger(): { logger: ReturnType<typeof pinoLogger>; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: pinoLogger(pino({ level: 'info' }, sink)), lines };
}

const events = (lines: string[]) => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

describe('reference server metrics and logs', () => {
  const servers: ReferenceServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });
  const start = async (env: Record<string, string>) => {
    const captured = capturedLogger();
    const server = await startReferenceServer(readConfig({ PORT: '0', HOST: '127.0.0.1', DATABASE_URL: '', ...env }), captured.logger);
    servers.push(server);
    const token = await server.tilecast.management.rotateToken('demo');
    return { server, lines: captured.lines, token };
  };

  it('TILECAST_METRICS=1 serves /metrics on the main port; each request is one log line with its route pattern', async () => {
    const { server, lines, token } = await start({ TILECAST_METRICS: '1' });
    expect(server.metricsUrl).toBe(`${server.url}/metrics`);
    const patched = await fetch(`${server.url}/widget/boiler`, {
      method: 'PATCH',
      headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: { template: 'gauge', value: 21, unit: '°C', label: 'Boiler' } }),
    });
    expect(patched.status).toBe(200);
    const scraped = await fetch(server.metricsUrl!);
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toContain('text/plain');
    const text = await scraped.text();
    expect(text).toContain('tilecast_http_requests_total{method="PATCH",route="/widget/{slug}",status="200"} 1');
    expect(text).toContain('process_cpu_seconds_total');
    expect(text).toMatch(/^tilecast_event_log_events \d+$/m);
    // The delivery job gauges come from the store (the memory store's deliveryJobStats, issue 34 item 1).
    expect(text).toMatch(/^tilecast_delivery_jobs_pending \d+$/m);
    expect(text).toMatch(/^tilecast_delivery_oldest_job_age_seconds [\d.]+$/m);
    expect(text).toMatch(/^tilecast_delivery_jobs_ended_total\{kind="widget",outcome="done"\} \d+$/m);
    expect((await fetch(server.metricsUrl!, { method: 'POST' })).status).toBe(405);

    const request = events(lines).find((event) => event.msg === 'request');
    expect(request).toMatchObject({ level: 30, method: 'PATCH', route: '/widget/{slug}', status: 200, account: 'demo' });
    expect(typeof request!.duration_ms).toBe('number');
  });

  it('TILECAST_METRICS_PORT serves /metrics on its own port, and not on the main one', async () => {
    const { server } = await start({ TILECAST_METRICS_PORT: '0' });
    expect(server.metricsUrl).not.toBeNull();
    expect(new URL(server.metricsUrl!).port).not.toBe(new URL(server.url).port);
    expect((await fetch(server.metricsUrl!)).status).toBe(200);
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
    expect((await fetch(new URL('/other', server.metricsUrl!))).status).toBe(404);
  });

  it('metrics are off by default', async () => {
    const { server } = await start({});
    expect(server.metricsUrl).toBeNull();
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
  });

  it('canary: a token, header value, body and path sent by clients appear in no log line and no metric', async () => {
    const { server, lines, token } = await start({ TILECAST_METRICS: '1' });
    const canaries = ['CANARYtok8e21f0', 'CANARYhdr5d0b7a', 'CANARYbody11c4e', 'CANARYpath7f3e2', 'CANARYqry0a9d1'];
    const [badToken, header, body, path, query] = canaries;
    const device = await server.tilecast.management.registerDevice({ id: 'canary-phone', account: 'demo' });
    const send = (url: string, init: RequestInit) => fetch(`${server.url}${url}`, init).then((reply) => reply.arrayBuffer());
    const json = { 'content-type': 'application/json', 'x-canary': header! };
    await send(`/widget/boiler?q=${query}`, {
      method: 'PATCH',
      headers: { ...json, authorization: `Token ${badToken}` },
      body: JSON.stringify({ content: body }),
    });
    await send(`/widget/boiler?q=${query}`, {
      method: 'PATCH',
      headers: { ...json, authorization: `Token ${token}` },
      body: JSON.stringify({ content: body }),
    });
    await send(`/widget/${path}`, { method: 'PATCH', headers: { ...json, authorization: `Token ${token}` }, body: `{"${body}":` });
    await send(`/${path}`, { headers: { 'x-canary': header! } });
    await send('/device/presses', {
      method: 'POST',
      headers: { ...json, authorization: `Device ${device.token}` },
      body: JSON.stringify({ owner: 'demo', slug: 'boiler', request_id: body, action: body }),
    });
    await send('/device/presses', { method: 'POST', headers: { ...json, authorization: `Device ${badToken}` }, body: JSON.stringify({ request_id: body }) });
    await server.tilecast.idle();
    const metrics = await (await fetch(server.metricsUrl!)).text();
    const log = lines.join('\n');
    expect(events(lines).filter((event) => event.msg === 'request').length).toBeGreaterThanOrEqual(5);
    for (const secret of [...canaries, token, device.token]) {
      expect(log, secret).not.toContain(secret);
      expect(metrics, secret).not.toContain(secret);
    }
  });
});

describe('observability settings', () => {
  const settings = (env: NodeJS.ProcessEnv) => loadConfig({ DATABASE_URL: '', ...env });
  it('TILECAST_METRICS and TILECAST_METRICS_PORT', () => {
    expect(settings({}).config?.metrics).toEqual({ serve: 'off' });
    expect(settings({ TILECAST_METRICS: '0' }).config?.metrics).toEqual({ serve: 'off' });
    expect(settings({ TILECAST_METRICS: '1' }).config?.metrics).toEqual({ serve: 'main' });
    expect(settings({ TILECAST_METRICS_PORT: '9464' }).config?.metrics).toEqual({ serve: 'port', port: 9464 });
    expect(settings({ TILECAST_METRICS: '1', TILECAST_METRICS_PORT: '9464' }).config?.metrics).toEqual({ serve: 'port', port: 9464 });
    expect(settings({ TILECAST_METRICS: 'yes' }).problems).toEqual(['TILECAST_METRICS must be 1 (on) or 0 (off), got "yes"']);
    expect(settings({ TILECAST_METRICS_PORT: '70000' }).problems).toEqual(['TILECAST_METRICS_PORT must be an integer 0-65535, got "70000"']);
    expect(settings({ TILECAST_METRICS: '0', TILECAST_METRICS_PORT: '9464' }).problems).toEqual([
      'TILECAST_METRICS_PORT is set but TILECAST_METRICS=0 turns metrics off: unset one of them',
    ]);
  });

  it('LOG_LEVEL: pino levels, default info, anything else refused', () => {
    expect(settings({}).config?.logLevel).toBe('info');
    expect(settings({ LOG_LEVEL: 'debug' }).config?.logLevel).toBe('debug');
    expect(settings({ LOG_LEVEL: 'verbose' }).problems).toEqual(['LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got "verbose"']);
  });

  it('npm start with an unknown LOG_LEVEL prints one clear line and exits 2', async () => {
    const child = spawn(process.execPath, [main], { env: { ...process.env, PORT: '0', DATABASE_URL: '', LOG_LEVEL: 'loud' }, stdio: 'pipe' });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const [code] = await once(child, 'exit');
    expect(code).toBe(2);
    expect(output.trim().split('\n')).toEqual([
      'LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got "loud"',
      'Tilecast reference server not started: a configuration problem (--help lists every setting)',
    ]);
  });

  it('on a terminal, log lines are compact: time, level, message, fields', () => {
    const line = JSON.stringify({
      level: 30,
      time: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
      pid: 1,
      hostname: 'h',
      method: 'PATCH',
      route: '/widget/{slug}',
      status: 200,
      msg: 'request',
    });
    expect(compactLine(line)).toBe('03:04:05.678 INFO  request method=PATCH route=/widget/{slug} status=200\n');
    expect(compactLine('not json\n')).toBe('not json\n');
  });
});
