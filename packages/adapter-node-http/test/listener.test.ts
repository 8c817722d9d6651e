/**
 * What the `node:http` listener hands back to its host (issue 23): every request no mount
 * has a route for goes to `notFound`, untouched; without one, the JSON 404.
 */
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { CoreRequest, CoreResult, RequestHandler } from '@tilecast/core/adapter';
import { createRequestListener, mount } from '../src/index.js';

/** A handler owning `paths`, answering each with its name and the path it saw. */
function handler(name: string, paths: string[]): Required<RequestHandler> {
  return {
    owns: (path) => paths.includes(path),
    handle: async (request: CoreRequest): Promise<CoreResult> => ({ kind: 'json', status: 200, body: { name, path: request.path } }),
  };
}

/** A host's own listener: echoes what it got, its body included (so it was left unread). */
function hostListener(req: IncomingMessage, res: ServerResponse): void {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => (body += chunk));
  req.on('end', () => {
    res.writeHead(418, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ host: true, method: req.method, url: req.url, body }));
  });
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => close?.());

async function serve(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const get = async (url: string, init?: RequestInit) => {
  const reply = await fetch(url, init);
  return { status: reply.status, body: await reply.json() };
};

describe('createRequestListener', () => {
  it("without notFound, answers what is not Tilecast's with the JSON 404, at the root and under a base path", async () => {
    for (const basePath of ['/', '/api']) {
      const origin = await serve(createRequestListener(handler('t', ['/x']), { basePath }));
      const base = basePath === '/' ? '' : basePath;
      expect(await get(`${origin}${base}/x`)).toEqual({ status: 200, body: { name: 't', path: '/x' } });
      expect(await get(`${origin}${base}/y`)).toEqual({ status: 404, body: { detail: 'Not Found' } });
      expect(await get(`${origin}/elsewhere/x`)).toEqual({ status: 404, body: { detail: 'Not Found' } });
      await close?.();
      close = undefined;
    }
  });

  it("hands what is not Tilecast's to notFound untouched: method, full URL, unread body", async () => {
    const origin = await serve(createRequestListener(handler('t', ['/x']), { basePath: '/api', notFound: hostListener }));
    const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"order":1' };
    expect(await get(`${origin}/api/y?q=1`, init)).toEqual({ status: 418, body: { host: true, method: 'POST', url: '/api/y?q=1', body: '{"order":1' } });
    expect(await get(`${origin}/x`, init)).toEqual({ status: 418, body: { host: true, method: 'POST', url: '/x', body: '{"order":1' } });
    expect(await get(`${origin}/api/x?q=1`)).toEqual({ status: 200, body: { name: 't', path: '/x' } });
  });
});

describe('mount', () => {
  it('tries the longest prefix first, then the shorter ones, then notFound', async () => {
    const listener = mount({ '/': handler('root', ['/events', '/device/legacy']), '/device': handler('device', ['/presses']) }, { notFound: hostListener });
    const origin = await serve(listener);
    expect(await get(`${origin}/device/presses`)).toEqual({ status: 200, body: { name: 'device', path: '/presses' } });
    expect(await get(`${origin}/events`)).toEqual({ status: 200, body: { name: 'root', path: '/events' } });
    expect(await get(`${origin}/device/legacy`)).toEqual({ status: 200, body: { name: 'root', path: '/device/legacy' } });
    expect(await get(`${origin}/device/nowhere`)).toMatchObject({ status: 418, body: { url: '/device/nowhere' } });
    expect(await get(`${origin}/presses`)).toMatchObject({ status: 418, body: { url: '/presses' } });
  });

  it('a handler without owns() claims every path under its prefix', async () => {
    const claimsAll: RequestHandler = { handle: async (request) => ({ kind: 'json', status: 200, body: { path: request.path } }) };
    const origin = await serve(mount({ '/all': claimsAll }, { notFound: hostListener }));
    expect(await get(`${origin}/all/anything`)).toEqual({ status: 200, body: { path: '/anything' } });
    expect(await get(`${origin}/other`)).toMatchObject({ status: 418 });
  });
});
