/**
 * The HTTP-level contract every adapter keeps, run against each of them with a fake
 * core: requests arrive translated exactly, results are written exactly, bodies are
 * limited, pre-parsed bodies are used, event streams flush and notice disconnects.
 */
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import express from 'express';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { tilecastRouter } from '@tilecast/adapter-express';
import { tilecastPlugin } from '@tilecast/adapter-fastify';
import { listen, mount } from '@tilecast/adapter-node-http';
import { TilecastError } from '@tilecast/core';
import { readJsonBody, errorToResult, type CoreRequest, type CoreResult } from '@tilecast/core/adapter';

interface Seen {
  method: string;
  path: string;
  query: string;
  headers: Record<string, unknown>;
  body?: unknown;
}

/** A fake core: records what it was given and answers according to the path. */
function fakeCore() {
  const seen: Seen[] = [];
  const streams: { aborted: boolean }[] = [];
  const handler = {
    async handle(request: CoreRequest): Promise<CoreResult> {
      const entry: Seen = { method: request.method, path: request.path, query: request.query.toString(), headers: request.headers };
      seen.push(entry);
      try {
        if (request.path === '/echo') {
          entry.body = await readJsonBody(request);
          return { kind: 'json', status: 201, body: { got: entry.body }, headers: { 'x-extra': 'yes' } };
        }
        if (request.path === '/empty') return { kind: 'empty', status: 204 };
        if (request.path === '/stream') {
          return {
            kind: 'sse',
            run: async (sink) => {
              const state = { aborted: false };
              streams.push(state);
              await sink.write('retry: 1000\n\n');
              await new Promise<void>((resolve) => sink.signal.addEventListener('abort', () => resolve(), { once: true }));
              state.aborted = true;
            },
          };
        }
        return errorToResult({ kind: 'route_not_found' });
      } catch (error) {
        if (error instanceof TilecastError) return errorToResult(error.error);
        throw error;
      }
    },
  };
  return { handler, seen, streams };
}

type Start = (core: ReturnType<typeof fakeCore>['handler']) => Promise<{ url: string; close(): Promise<void> }>;

async function expressApp(core: ReturnType<typeof fakeCore>['handler'], preParse: boolean) {
  const app = express();
  if (preParse) app.use(express.json({ limit: '1mb' }));
  app.use('/mounted/here', tilecastRouter(core));
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mounted/here`,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

async function fastifyApp(core: ReturnType<typeof fakeCore>['handler']) {
  const app = Fastify();
  await app.register(tilecastPlugin, { prefix: '/mounted/here', handler: core });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url: `${address}/mounted/here`, close: () => (app.server.closeAllConnections(), app.close()) };
}

const adapters: [string, Start][] = [
  ['node-http', (core) => listen(core, { basePath: '/mounted/here' })],
  ['node-http mount()', (core) => listen(mount({ '/mounted/here': core }), {}).then((s) => ({ ...s, url: `${s.url}/mounted/here` }))],
  ['express', (core) => expressApp(core, false)],
  ['express+json', (core) => expressApp(core, true)],
  ['fastify', (core) => fastifyApp(core)],
];

describe.each(adapters)('adapter contract: %s', (_name, start) => {
  let running: { url: string; close(): Promise<void> } | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });
  const setup = async () => {
    const core = fakeCore();
    running = await start(core.handler);
    return { ...core, url: running.url };
  };

  it('translates method, path relative to the mount, query and headers; writes status, headers and JSON', async () => {
    const { url, seen } = await setup();
    const reply = await fetch(`${url}/echo?b=2&a=1&a=3`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', 'x-custom': 'v' },
      body: JSON.stringify({ hello: 'wörld' }),
    });
    expect(reply.status).toBe(201);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply.headers.get('x-extra')).toBe('yes');
    expect(await reply.json()).toEqual({ got: { hello: 'wörld' } });
    expect(seen[0]).toMatchObject({ method: 'PATCH', path: '/echo', query: 'b=2&a=1&a=3', headers: { 'x-custom': 'v' } });
  });

  it('hands every Authorization header to the core: one as a string, repeated ones as an array in order', async () => {
    const { url, seen } = await setup();
    const path = `${new URL(url).pathname}/empty`;
    expect(await rawRequest(url, `GET ${path} HTTP/1.1\r\nAuthorization: Token one`)).toMatch(/^HTTP\/1\.1 204 /);
    expect(await rawRequest(url, `GET ${path} HTTP/1.1\r\nAuthorization: Token one\r\nX-Other: x\r\nauthorization: Token two`)).toMatch(/^HTTP\/1\.1 204 /);
    expect(await rawRequest(url, `GET ${path} HTTP/1.1\r\nAUTHORIZATION: Device a\r\nAuthorization: Device a\r\naUtHoRiZaTiOn: Token c`)).toMatch(/^HTTP\/1\.1 204 /);
    expect(seen.map((request) => request.headers.authorization)).toEqual(['Token one', ['Token one', 'Token two'], ['Device a', 'Device a', 'Token c']]);
    expect(seen[1]!.headers['x-other']).toBe('x');
  });

  it('writes an empty result without a body', async () => {
    const { url } = await setup();
    const reply = await fetch(`${url}/empty`, { method: 'DELETE' });
    expect(reply.status).toBe(204);
    expect(await reply.text()).toBe('');
  });

  it('413 for a chunked body over 64 KiB, without reading it all', async () => {
    const { url } = await setup();
    // express+json: body-parser's own limit (1 MB here) is not reached; the core's 64 KiB is.
    expect(await chunkedUpload(`${url}/echo`, 200, 1024)).toBe(413);
  });

  it('a body that is not JSON is a 422 json_invalid (whoever parsed it)', async () => {
    const { url } = await setup();
    const reply = await fetch(`${url}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' });
    expect(reply.status).toBe(422);
    expect(await reply.json()).toEqual({ detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] });
  });

  it('a compressed body is a 415 in the JSON error shape, whoever read it, even one that does not inflate', async () => {
    const { url } = await setup();
    const valid = JSON.stringify({ a: 1 });
    const bodies: Array<[string, Uint8Array]> = [
      ['gzip', gzipSync(valid)],
      ['gzip', Buffer.from('not gzip')],
      ['deflate', Buffer.from('not deflate')],
      ['br', Buffer.from('not brotli')],
    ];
    for (const [encoding, body] of bodies) {
      const reply = await fetch(`${url}/echo`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': encoding }, body });
      expect(reply.status, `${encoding} ${body.byteLength} bytes`).toBe(415);
      expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await reply.json()).toEqual({ detail: 'Unsupported Media Type' });
    }
  });

  it('event streams: headers flushed at once, the sink notices a disconnect', async () => {
    const { url, streams } = await setup();
    const controller = new AbortController();
    const reply = await fetch(`${url}/stream`, { signal: controller.signal, headers: { 'accept-encoding': 'gzip' } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(reply.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(reply.headers.get('x-accel-buffering')).toBe('no');
    expect(reply.headers.get('content-encoding')).toBeNull();
    const reader = reply.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('retry: 1000\n\n');
    controller.abort();
    for (let i = 0; i < 100 && !streams[0]!.aborted; i++) await new Promise((r) => setTimeout(r, 10));
    expect(streams[0]!.aborted).toBe(true);
  });

  it('paths outside the mount are not Tilecast\'s', async () => {
    const { url, seen } = await setup();
    const outside = url.replace('/mounted/here', '/elsewhere');
    const reply = await fetch(`${outside}/echo`);
    expect(reply.status).toBe(404);
    expect(seen).toHaveLength(0);
  });
});

/** Writes `head` (request line and headers, no final blank line) on a raw socket, as fetch cannot (it merges repeated headers); the answer's text. */
function rawRequest(url: string, head: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(`${head}\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`));
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
    socket.setTimeout(5_000, () => socket.destroy(new Error('no answer')));
  });
}

/** Sends `chunks` chunks of `size` bytes with chunked encoding; resolves with the status. */
function chunkedUpload(url: string, chunks: number, size: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (error) => ((error as NodeJS.ErrnoException).code === 'ECONNRESET' || (error as NodeJS.ErrnoException).code === 'EPIPE' ? undefined : reject(error)));
    req.write('["');
    let sent = 0;
    const pump = () => {
      while (sent < chunks) {
        sent++;
        if (!req.write('x'.repeat(size))) return void req.once('drain', pump);
      }
      req.end('"]');
    };
    pump();
  });
}
