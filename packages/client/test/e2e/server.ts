/**
 * The reference server, in process, on 127.0.0.1 with a seed file (fixed tokens, so a
 * restarted server accepts the same client), plus what a phone does: press and watch.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@tilecast/core';
import { readConfig, type ServerConfig } from '../../../../examples/reference-server/src/config.js';
import { startReferenceServer, type ReferenceServer } from '../../../../examples/reference-server/src/index.js';

export const TOKEN = 'tok_acme_client_1';
export const BROKE_TOKEN = 'tok_broke_client_1';
export const DEVICE_TOKEN = 'dev_acme_phone_1';

const seed = {
  accounts: [
    {
      id: 'acme',
      token: TOKEN,
      subscription: 'active',
      activity_quota: 1,
      devices: [{ id: 'acme-phone', token: DEVICE_TOKEN }],
      activities: [
        { slug: 'build', template: 'progress', dismissal_delay_s: 0 },
        { slug: 'deploy', template: 'generic', dismissal_delay_s: 0 },
      ],
      widgets: [
        { slug: 'lights', template: 'switchboard' },
        { slug: 'boiler', template: 'gauge', stale_after: 3600 },
      ],
    },
    { id: 'broke', token: BROKE_TOKEN, subscription: 'none', widgets: [{ slug: 'lights', template: 'switchboard' }] },
  ],
};

/** The switchboard the press tests use: a toggle and a button. */
export const LIGHTS = {
  template: 'switchboard',
  actions: [
    { id: 'hall', label: 'Hall', kind: 'toggle', on: false },
    { id: 'bell', label: 'Doorbell' },
  ],
};

/** Presses need content to press on; a restarted server starts empty. */
async function start(config: ServerConfig): Promise<ReferenceServer> {
  const server = await startReferenceServer(config, silentLogger);
  const response = await fetch(`${server.url}/widget/lights`, {
    method: 'PATCH',
    headers: { authorization: `Token ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ content: LIGHTS }),
  });
  if (response.status !== 200) throw new Error(`publishing the test switchboard failed: ${response.status}`);
  return server;
}

export interface TestServer {
  server: ReferenceServer;
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Starts a fresh server (same seed, so same tokens) on the same port. */
  restart(): Promise<void>;
  cleanup(): Promise<void>;
}

export async function startServer(sse: { lifetimeMs?: number; pingMs?: number } = {}): Promise<TestServer> {
  const dir = await mkdtemp(join(tmpdir(), 'tilecast-client-'));
  const seedPath = join(dir, 'seed.json');
  await writeFile(seedPath, JSON.stringify(seed));
  const config = (port: number): ServerConfig => {
    const base = readConfig({ PORT: String(port), HOST: '127.0.0.1', TILECAST_SEED: seedPath });
    return { ...base, sse: { pingMs: sse.pingMs ?? base.sse.pingMs, lifetimeMs: sse.lifetimeMs ?? base.sse.lifetimeMs } };
  };
  let server: ReferenceServer | undefined = await start(config(0));
  const url = server.url;
  const port = Number(new URL(url).port);
  const handle: TestServer = {
    get server() {
      return server!;
    },
    url,
    port,
    async stop() {
      await server?.close();
      server = undefined;
    },
    async restart() {
      server = await start(config(port));
    },
    async cleanup() {
      await handle.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return handle;
}

/** `POST /device/presses` as the phone: the press's event id. */
export async function press(url: string, body: { slug: string; request_id: string; action: string; value?: boolean; owner?: string }): Promise<string> {
  const response = await fetch(`${url}/device/presses`, {
    method: 'POST',
    headers: { authorization: `Device ${DEVICE_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ owner: 'acme', ...body }),
  });
  if (response.status !== 202) throw new Error(`press refused: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { event_id: string }).event_id;
}

export interface DeviceStream {
  /** The next `event: widget` push whose data matches, within `timeoutMs`. */
  next(predicate: (data: any) => boolean, timeoutMs?: number): Promise<any>;
  close(): void;
}

/** `GET /device/stream` read with fetch: a deliberately small SSE reader, independent of the client's. */
export async function openDeviceStream(url: string): Promise<DeviceStream> {
  const stop = new AbortController();
  const response = await fetch(`${url}/device/stream`, { headers: { authorization: `Device ${DEVICE_TOKEN}` }, signal: stop.signal });
  if (response.status !== 200) throw new Error(`device stream refused: ${response.status}`);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const pending: any[] = [];
  const readPush = async (): Promise<void> => {
    const { done, value } = await reader.read();
    if (done) throw new Error('device stream ended');
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end).split('\n');
      buffer = buffer.slice(end + 2);
      const data = block.find((line) => line.startsWith('data: '));
      if (block.includes('event: widget') && data) pending.push(JSON.parse(data.slice(6)));
    }
  };
  return {
    async next(predicate, timeoutMs = 5000) {
      const timer = setTimeout(() => stop.abort(new Error('no matching device push in time')), timeoutMs);
      try {
        for (;;) {
          const index = pending.findIndex(predicate);
          if (index !== -1) return pending.splice(0, index + 1).at(-1);
          await readPush();
        }
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => stop.abort(),
  };
}
