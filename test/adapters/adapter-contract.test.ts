/**
 * The HTTP-level contract every adapter keeps, run against each mount with a fake core, at
 * a sub-path and at the root of a host: requests arrive translated exactly, results are
 * written exactly, bodies are limited, pre-parsed bodies are used, event streams flush,
 * end and free their slot when the client leaves, and what is not Tilecast's reaches the
 * host (its 404, its error handler) untouched.
 *
 * Adding an adapter: append one entry to `mounts`. Its `start` serves the fake core at
 * `basePath` inside a host app that answers every request it gets with `hostAnswer`
 * (`404`, `host: not found`), and every error of its own body parser with
 * `400 host: error` (a host without a body parser never has one).
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import express from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import { serve as serveFetch } from '@hono/node-server';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { tilecastRouter } from '@tilecast/adapter-express';
import { createFetchHandler } from '@tilecast/adapter-fetch';
import { tilecastFrameworkErrors, tilecastPlugin } from '@tilecast/adapter-fastify';
import { installServerHandlers, listen, mount } from '@tilecast/adapter-node-http';
import { TilecastError } from '@tilecast/core';
import { readJsonBody, errorToResult, type CoreRequest, type CoreResult, type RequestHandler } from '@tilecast/core/adapter';

interface Seen {
  method: string;
  path: string;
  query: string;
  headers: Record<string, unknown>;
  body?: unknown;
}

/** The fake core's routes and their methods; every other path is not its own. */
const ROUTES: Record<string, string[]> = {
  '/echo': ['POST', 'PATCH', 'PUT'],
  '/empty': ['GET', 'DELETE'],
  '/stream': ['GET'],
  '/stream-short': ['GET'],
  '/boom': ['GET'],
};
/** And one parametric route, `GET /items/{id}`: a path the core owns with any last segment, as written. */
const ITEM = /^\/items\/[^/]+$/;

/** A fake core: records what it was given and answers according to the path. */
function fakeCore() {
  const seen: Seen[] = [];
  /** The kinds of the refusals it raised (a `request_aborted` is a client that left mid-body). */
  const refusals: string[] = [];
  const streams: { aborted: boolean }[] = [];
  const slots = { open: 0 };
  const handler = {
    owns: (path: string) => Object.hasOwn(ROUTES, path) || ITEM.test(path),
    async handle(request: CoreRequest): Promise<CoreResult> {
      const entry: Seen = { method: request.method, path: request.path, query: request.query.toString(), headers: request.headers };
      seen.push(entry);
      const methods = ROUTES[request.path] ?? (ITEM.test(request.path) ? ['GET'] : undefined);
      if (methods === undefined) return errorToResult({ kind: 'route_not_found' });
      if (!methods.includes(request.method)) return errorToResult({ kind: 'method_not_allowed', allow: methods });
      if (ITEM.test(request.path)) return { kind: 'json', status: 200, body: { item: request.path } };
      try {
        if (request.path === '/echo') {
          entry.body = await readJsonBody(request);
          return { kind: 'json', status: 201, body: { got: entry.body }, headers: { 'x-extra': 'yes' } };
        }
        if (request.path === '/empty') return { kind: 'empty', status: 204 };
        if (request.path === '/boom') throw new Error('a core that breaks its promise never to reject');
        if (request.path === '/stream-short') {
          return { kind: 'sse', run: (sink) => sink.write('data: one\n\n') };
        }
        return {
          kind: 'sse',
          run: async (sink) => {
            const state = { aborted: false };
            streams.push(state);
            slots.open++;
            try {
              await sink.write('retry: 1000\n\n');
              await new Promise<void>((resolve) => sink.signal.addEventListener('abort', () => resolve(), { once: true }));
              state.aborted = true;
            } finally {
              slots.open--;
            }
          },
        };
      } catch (error) {
        if (!(error instanceof TilecastError)) throw error;
        refusals.push(error.error.kind);
        return errorToResult(error.error);
      }
    },
  } satisfies Required<RequestHandler>;
  return { handler, seen, refusals, streams, slots };
}

type FakeHandler = ReturnType<typeof fakeCore>['handler'];

/** A host app serving Tilecast: `url` is where Tilecast is mounted (no trailing slash). */
interface Host {
  url: string;
  server: Server;
  close(): Promise<void>;
}

interface Mount {
  name: string;
  start(core: FakeHandler, basePath: string): Promise<Host>;
}

/** What a host app answers to every request that reaches it. */
const hostAnswer = { status: 404, body: 'host: not found' };
/** What a host app answers to an error of its own body parser. */
const hostError = { status: 400, body: 'host: error' };

function hostNotFound(_req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(hostAnswer.status, { 'content-type': 'text/plain' });
  res.end(hostAnswer.body);
}

/** The list of mounts the contract runs over: one entry per adapter and host setup. */
const mounts: Mount[] = [
  {
    name: 'node-http',
    start: (core, basePath) => listen(core, { basePath, notFound: hostNotFound }),
  },
  {
    name: 'node-http mount() in a host server',
    start: (core, basePath) => serve(mount({ [basePath]: core }, { notFound: hostNotFound }), basePath),
  },
  { name: 'express 4', start: (core, basePath) => expressHost(express4 as unknown as typeof express, core, basePath, false) },
  { name: 'express 5', start: (core, basePath) => expressHost(express, core, basePath, false) },
  { name: 'express 4+json', start: (core, basePath) => expressHost(express4 as unknown as typeof express, core, basePath, true) },
  { name: 'express 5+json', start: (core, basePath) => expressHost(express, core, basePath, true) },
  { name: 'fastify', start: (core, basePath) => fastifyHost(core, basePath) },
  { name: 'fetch in Hono', start: (core, basePath) => honoHost(core, basePath) },
];

/** A Hono host on @hono/node-server: the Fetch handler as middleware (`undefined`: carry on), its own 404 and error handlers. */
async function honoHost(core: FakeHandler, basePath: string): Promise<Host> {
  const app = new Hono();
  const tilecast = createFetchHandler(core, { basePath, notFound: () => undefined });
  app.use('*', async (c, next) => (await tilecast(c.req.raw)) ?? next());
  app.notFound((c) => c.text(hostAnswer.body, hostAnswer.status as 404));
  app.onError((_error, c) => c.text(hostError.body, hostError.status as 400));
  const server = await new Promise<Server>((resolve) => {
    const s = serveFetch({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s as Server));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${basePath === '/' ? '' : basePath}`,
    server,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/**
 * A Fastify host: its own JSON parsing for its routes, Tilecast's plugin, its own 404 and
 * error handlers, and `tilecastFrameworkErrors`, as the adapter's README tells a host app to.
 */
async function fastifyHost(core: FakeHandler, basePath: string): Promise<Host> {
  const app = Fastify({ frameworkErrors: tilecastFrameworkErrors() });
  app.setNotFoundHandler((_request, reply) => reply.code(hostAnswer.status).type('text/plain').send(hostAnswer.body));
  app.setErrorHandler((_error, _request, reply) => reply.code(hostError.status).type('text/plain').send(hostError.body));
  await app.register(tilecastPlugin, { prefix: basePath === '/' ? '' : basePath, handler: core });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${basePath === '/' ? '' : basePath}`,
    server: app.server,
    close: async () => {
      app.server.closeAllConnections();
      await app.close();
    },
  };
}

/** An Express host: its own `express.json()` (when `preParse`), Tilecast, its own 404 and error handlers. */
function expressHost(createApp: typeof express, core: FakeHandler, basePath: string, preParse: boolean): Promise<Host> {
  const app = createApp();
  if (preParse) app.use(createApp.json({ limit: '1mb' }));
  app.use(basePath, tilecastRouter(core));
  app.use((req: express.Request, res: express.Response) => hostNotFound(req, res));
  app.use((_error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(hostError.status).type('text/plain').send(hostError.body);
  });
  return serve(app, basePath);
}

async function serve(listener: (req: IncomingMessage, res: ServerResponse) => void, basePath: string): Promise<Host> {
  const server = createServer(listener);
  installServerHandlers(server, listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${basePath === '/' ? '' : basePath}`,
    server,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

const cases = mounts.flatMap((entry) => ['/mounted/here', '/'].map((basePath) => [entry.name, basePath, entry] as const));

describe.each(cases)('adapter contract: %s at %s', (_name, basePath, entry) => {
  let running: Host | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });
  const setup = async () => {
    const core = fakeCore();
    running = await entry.start(core.handler, basePath);
    return { ...core, url: running.url, server: running.server };
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
    const path = `${new URL(url).pathname.replace(/\/$/, '')}/empty`;
    expect(await rawRequest(url, `GET ${path} HTTP/1.1\r\nAuthorization: Token one`)).toMatch(/^HTTP\/1\.1 204 /);
    expect(await rawRequest(url, `GET ${path} HTTP/1.1\r\nAuthorization: Token one\r\nX-Other: x\r\nauthorization: Token two`)).toMatch(/^HTTP\/1\.1 204 /);
    expect(await rawRequest(url, `GET ${path} HTTP/1.1\r\nAUTHORIZATION: Device a\r\nAuthorization: Device a\r\naUtHoRiZaTiOn: Token c`)).toMatch(
      /^HTTP\/1\.1 204 /,
    );
    // A Fetch `Headers` joins them with `, `: one malformed value, which the core refuses like two.
    const repeated = entry.name.startsWith('fetch')
      ? ['Token one, Token two', 'Device a, Device a, Token c']
      : [
          ['Token one', 'Token two'],
          ['Device a', 'Device a', 'Token c'],
        ];
    expect(seen.map((request) => request.headers.authorization)).toEqual(['Token one', ...repeated]);
    expect(seen[1]!.headers['x-other']).toBe('x');
  });

  it('writes an empty result without a body', async () => {
    const { url } = await setup();
    const reply = await fetch(`${url}/empty`, { method: 'DELETE' });
    expect(reply.status).toBe(204);
    expect(await reply.text()).toBe('');
  });

  describe('fall-through', () => {
    it('a path Tilecast has no route for reaches the host, untouched', async () => {
      const { url, seen } = await setup();
      for (const path of ['/nowhere', '/echo/deeper', '/ec', '/empty/']) {
        const reply = await fetch(`${url}${path}?q=1`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        expect(reply.status, path).toBe(hostAnswer.status);
        expect(await reply.text(), path).toBe(hostAnswer.body);
      }
      expect(seen).toHaveLength(0);
    });

    // Only a mount below the root has paths outside it (no skipped test at the root mount).
    if (basePath !== '/')
      it('a path outside the mount reaches the host, even one Tilecast has below the mount', async () => {
        const { url, seen } = await setup();
        const origin = new URL(url).origin;
        for (const path of ['/echo', '/elsewhere/echo', '/mounted', '/mounted/hereecho']) {
          const reply = await fetch(`${origin}${path}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' });
          expect(reply.status, path).toBe(hostAnswer.status);
          expect(await reply.text(), path).toBe(hostAnswer.body);
        }
        expect(seen).toHaveLength(0);
      });

    it("a path Tilecast has, with another method, is Tilecast's: a JSON 405 with Allow", async () => {
      const { url, seen } = await setup();
      const reply = await fetch(`${url}/stream`, { method: 'DELETE' });
      expect(reply.status).toBe(405);
      expect(reply.headers.get('allow')).toBe('GET');
      expect(await reply.json()).toEqual({ detail: 'Method Not Allowed' });
      expect(seen).toHaveLength(1);
    });

    it('a path with a malformed percent-escape reaches the core as written, as on every adapter', async () => {
      const { url, seen } = await setup();
      for (const id of ['%E0%A4%A', '%ZZ', '%', 'a%2Fb', '%E2%9C%93']) {
        const reply = await fetch(`${url}/items/${id}?q=1`);
        expect(reply.status, id).toBe(200);
        expect(await reply.json(), id).toEqual({ item: `/items/${id}` });
      }
      expect(seen.map((request) => request.query)).toEqual(Array(5).fill('q=1'));
    });

    it("a malformed percent-escape in a path that is not Tilecast's is the host's", async () => {
      const { url, seen } = await setup();
      for (const path of ['/nowhere/%E0%A4%A', '/items/%ZZ/deeper']) {
        const reply = await fetch(`${url}${path}`);
        // The host's 404; Fastify refuses such a target before routing, with its own 400.
        const text = await reply.text();
        if (entry.name === 'fastify') expect([reply.status, JSON.parse(text).code], path).toEqual([400, 'FST_ERR_BAD_URL']);
        else expect([reply.status, text], path).toEqual([hostAnswer.status, hostAnswer.body]);
      }
      expect(seen).toHaveLength(0);
    });

    it("a malformed JSON body to a path that is not Tilecast's is the host's, never Tilecast's 422", async () => {
      const { url, seen } = await setup();
      const reply = await fetch(`${url}/api/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' });
      // The host's body parser, if it has one, refuses it; otherwise its 404 answers.
      expect([hostAnswer, hostError].map((answer) => answer.status)).toContain(reply.status);
      expect(await reply.text()).toMatch(/^host: /);
      expect(seen).toHaveLength(0);
    });
  });

  describe('body limits and error shapes', () => {
    it('413 for a Content-Length over 64 KiB', async () => {
      const { url } = await setup();
      const reply = await upload(`${url}/echo`, { chunked: false, chunks: 70, size: 1024 });
      expect(reply.status).toBe(413);
      expect(JSON.parse(reply.body)).toEqual({ detail: 'Request body too large' });
    });

    it('413 for a chunked body over 64 KiB, without reading it all', async () => {
      const { url } = await setup();
      // express+json: body-parser's own limit (1 MB here) is not reached; the core's 64 KiB is.
      const reply = await upload(`${url}/echo`, { chunked: true, chunks: 200, size: 1024 });
      expect(reply.status).toBe(413);
      expect(JSON.parse(reply.body)).toEqual({ detail: 'Request body too large' });
    });

    it('a body of exactly 64 KiB is read', async () => {
      const { url } = await setup();
      const reply = await upload(`${url}/echo`, { chunked: true, chunks: 64, size: 1024, total: 64 * 1024 });
      expect(reply.status).toBe(201);
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

    it('a core that rejects after all is a JSON 500', async () => {
      const { url } = await setup();
      const reply = await fetch(`${url}/boom`);
      expect(reply.status).toBe(500);
      expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await reply.json()).toEqual({ detail: 'Internal Server Error' });
    });
  });

  describe('streaming and client aborts', () => {
    it('event streams: headers and first bytes flushed at once; the client leaving frees the slot', async () => {
      const { url, streams, slots } = await setup();
      const controller = new AbortController();
      const reply = await fetch(`${url}/stream`, { signal: controller.signal, headers: { 'accept-encoding': 'gzip' } });
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(reply.headers.get('cache-control')).toBe('no-cache, no-transform');
      expect(reply.headers.get('x-accel-buffering')).toBe('no');
      expect(reply.headers.get('content-encoding')).toBeNull();
      const reader = reply.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe('retry: 1000\n\n');
      expect(slots.open).toBe(1);
      controller.abort();
      await until(() => slots.open === 0);
      expect(streams[0]!.aborted).toBe(true);
    });

    it('an event stream the core ends is ended for the client', async () => {
      const { url } = await setup();
      const reply = await fetch(`${url}/stream-short`);
      expect(reply.status).toBe(200);
      expect(await reply.text()).toBe('data: one\n\n');
    });

    it('a client that leaves mid-body is an abort for the core, and nothing is answered', async () => {
      const { url, server, refusals } = await setup();
      const { hostname, port, pathname } = new URL(url);
      const arrived = new Promise<void>((resolve) => server.once('request', () => resolve()));
      const socket = connect(Number(port), hostname);
      socket.on('error', () => {});
      socket.write(
        `POST ${pathname.replace(/\/$/, '')}/echo HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":`,
      );
      await arrived;
      socket.destroy();
      await until(() => refusals.length > 0);
      expect(refusals).toEqual(['request_aborted']);
    });
  });
});

/** Waits, a bounded while, for `condition`. */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

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

/**
 * Sends a JSON array of one string, `chunks` writes of `size` bytes (the whole body `total`
 * bytes, or a little more), with chunked encoding or a Content-Length; the answer, which may
 * come before the body is all sent.
 */
function upload(url: string, options: { chunked: boolean; chunks: number; size: number; total?: number }): Promise<{ status: number; body: string }> {
  const total = options.total ?? options.chunks * options.size + 4;
  const headers: Record<string, string | number> = { 'content-type': 'application/json' };
  if (options.chunked) headers['transfer-encoding'] = 'chunked';
  else headers['content-length'] = total;
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', (error) =>
      (error as NodeJS.ErrnoException).code === 'ECONNRESET' || (error as NodeJS.ErrnoException).code === 'EPIPE' ? undefined : reject(error),
    );
    // `["` + filler + `"]`: the filler is what is left of `total`, in `chunks` writes at most.
    let left = total - 4;
    req.write('["');
    const pump = () => {
      while (left > 0) {
        const piece = Math.min(left, options.size);
        left -= piece;
        if (!req.write('x'.repeat(piece))) return void req.once('drain', pump);
      }
      req.end('"]');
    };
    pump();
  });
}
