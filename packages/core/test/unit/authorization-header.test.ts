import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { readCredentials, soleAuthorization } from '../../src/auth/authorization-header.js';
import type { CoreRequest, HeaderValue } from '../../src/adapter.js';
import { createTilecast, silentLogger } from '../../src/index.js';

describe('the Authorization header', () => {
  it('is one header: a string, or an array of exactly one (as an adapter may hand it over)', () => {
    expect(soleAuthorization('Token a')).toBe('Token a');
    expect(soleAuthorization(['Token a'])).toBe('Token a');
    expect(soleAuthorization(undefined)).toBeUndefined();
    expect(soleAuthorization([])).toBeUndefined();
    expect(soleAuthorization(['Token a', 'Token a'])).toBeUndefined();
    expect(soleAuthorization(['Token a', 'Token b', 'Token c'])).toBeUndefined();
  });

  it('credentials are read from one header only; two or more give none', () => {
    expect(readCredentials(['Device d1'], 'Device')).toBe('d1');
    expect(readCredentials(['Device d1', 'Device d2'], 'Device')).toBeNull();
    expect(readCredentials(['Device d1', 'Device d1'], 'Device')).toBeNull();
  });

  it.each(['tok_\0', 'tok_\ud800', 'tok_\udfff', 'tok_\u00e9', 'tok_\uffff'])('credentials %j hold only visible ASCII: none', (token) => {
    expect(readCredentials(`Token ${token}`, 'Token')).toBeNull();
  });

  it('the publisher API: an array of one good header is accepted, of two good ones refused, also once the credential is remembered', async () => {
    const tilecast = createTilecast({ storage: createMemoryStorage(), logger: silentLogger, purgeIntervalMs: 0 });
    const { token } = await tilecast.management.createAccount({ id: 'acme' });
    await tilecast.management.createWidget({ account: 'acme', slug: 'w', template: 'gauge' });
    const patch = (authorization: HeaderValue): CoreRequest => ({
      method: 'PATCH',
      path: '/widget/w',
      query: new URLSearchParams(),
      headers: { authorization },
      body: { kind: 'parsed', value: { content: { template: 'gauge', value: 1 } } },
    });
    expect(await tilecast.handle(patch([`Token ${token}`]))).toMatchObject({ status: 200 });
    expect(await tilecast.handle(patch(`Token ${token}`))).toMatchObject({ status: 200 });
    expect(await tilecast.handle(patch([`Token ${token}`, `Token ${token}`]))).toMatchObject({
      status: 401,
      body: { detail: 'Could not validate credentials' },
    });
    expect(await tilecast.handle(patch([`Token ${token}`, 'Token bad']))).toMatchObject({ status: 401 });
    await tilecast.close();
  });
});
