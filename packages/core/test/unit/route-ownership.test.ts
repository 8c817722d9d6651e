/**
 * "Is this mine?": what the core tells adapters, which hand every other request back to
 * their host (issue 23). A path is Tilecast's when some route has it, whatever the method.
 */
import { describe, expect, it } from 'vitest';
import { ownsPath } from '../../src/adapter.js';
import { createTilecast, silentLogger } from '../../src/index.js';
import { createMemoryStorage } from '@tilecast/storage-memory';

const tilecast = createTilecast({ storage: createMemoryStorage(), logger: silentLogger, purgeIntervalMs: 0 });

describe('owns(path)', () => {
  it('owns every path of its routes, with parameters, whatever the method', () => {
    for (const path of ['/activity/build', '/widget/lights', '/widget/lights/webhooks', '/events', '/openapi.json', '/activity/%20x', '/activity/%ZZ']) {
      expect(tilecast.owns(path), path).toBe(true);
    }
    expect(tilecast.device.owns('/presses')).toBe(true);
    expect(tilecast.device.owns('/stream')).toBe(true);
  });

  it('owns nothing else: other paths, an empty parameter, a trailing slash, the other API', () => {
    for (const path of [
      '',
      'widget/lights',
      '/',
      '/nowhere',
      '/activity',
      '/activity/',
      '/activity/build/',
      '/activity/build/extra',
      '/widget//webhooks',
      '/events/',
      '/presses',
      '/stream',
      '/api/orders',
      '/Events',
    ]) {
      expect(tilecast.owns(path), path).toBe(false);
    }
    expect(tilecast.device.owns('/events')).toBe(false);
    expect(tilecast.device.owns('/')).toBe(false);
  });

  it('agrees with handle(): what it does not own is the 404, what it owns never is', async () => {
    const request = (method: string, path: string) => ({
      method,
      path,
      query: new URLSearchParams(),
      headers: {},
      body: { kind: 'parsed' as const, value: {} },
    });
    for (const path of ['/nowhere', '/activity/build/', '/widget//webhooks']) {
      expect(await tilecast.handle(request('GET', path))).toMatchObject({ status: 404 });
    }
    expect(await tilecast.handle(request('DELETE', '/events'))).toMatchObject({ status: 405, headers: { allow: 'GET, HEAD' } });
  });

  it('ownsPath: a handler without owns() claims every path', () => {
    const handle = async () => ({ kind: 'empty' as const, status: 204 });
    expect(ownsPath({ handle }, '/anything')).toBe(true);
    expect(ownsPath({ handle, owns: () => false }, '/anything')).toBe(false);
    expect(ownsPath(tilecast, '/events')).toBe(true);
    expect(ownsPath(tilecast, '/nowhere')).toBe(false);
  });
});
