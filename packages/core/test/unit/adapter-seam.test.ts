/** The seam's decisions an adapter only applies: a result's status and headers, the mount a path goes to, the target's parts. */
import { describe, expect, it } from 'vitest';
import { createMountTable, errorToResult, mountPrefix, responseHead, splitTarget, type CoreResult } from '../../src/adapter.js';

describe('responseHead', () => {
  it('json: its status and headers, with the JSON media type', () => {
    expect(responseHead({ kind: 'json', status: 201, body: {} })).toEqual({ status: 201, headers: { 'content-type': 'application/json' } });
    expect(responseHead(errorToResult({ kind: 'method_not_allowed', allow: ['GET', 'PATCH'] }))).toEqual({
      status: 405,
      headers: { allow: 'GET, PATCH', 'content-type': 'application/json' },
    });
  });

  it('empty: its status and headers only', () => {
    expect(responseHead({ kind: 'empty', status: 204 })).toEqual({ status: 204, headers: {} });
    expect(responseHead({ kind: 'empty', status: 204, headers: { etag: '"1"' } })).toEqual({ status: 204, headers: { etag: '"1"' } });
  });

  it('an event stream: 200, never cached, transformed, buffered by a proxy or compressed', () => {
    const run = async () => {};
    expect(responseHead({ kind: 'sse', run })).toEqual({
      status: 200,
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' },
    });
    expect(responseHead({ kind: 'sse', run, headers: { 'x-extra': 'yes' } }).headers).toMatchObject({ 'x-extra': 'yes', 'x-accel-buffering': 'no' });
  });

  it("gives new headers each time: an adapter's framing headers never reach the result or the next answer", () => {
    const result: CoreResult = { kind: 'json', status: 200, body: null, headers: { 'x-a': '1' } };
    const first = responseHead(result);
    first.headers['content-length'] = '4';
    expect(result.headers).toEqual({ 'x-a': '1' });
    expect(responseHead(result).headers).toEqual({ 'x-a': '1', 'content-type': 'application/json' });
    const stream = responseHead({ kind: 'sse', run: async () => {} });
    stream.headers.connection = 'close';
    expect(responseHead({ kind: 'sse', run: async () => {} }).headers).not.toHaveProperty('connection');
  });
});

describe('createMountTable', () => {
  const owner = (...paths: string[]) => ({ owns: (path: string) => paths.includes(path) });
  const root = owner('/events', '/widget/a');
  const device = owner('/stream');

  it('the longest prefix the path is under whose handler owns the rest, else undefined', () => {
    const find = createMountTable({ '/': root, '/device': device });
    expect(find('/events')).toEqual({ handler: root, path: '/events', prefix: '' });
    expect(find('/device/stream')).toEqual({ handler: device, path: '/stream', prefix: '/device' });
    expect(find('/device/events')).toBeUndefined(); // neither owns it: the root owns /events, not /device/events
    expect(find('/devicestream')).toBeUndefined();
    expect(find('/nowhere')).toBeUndefined();
  });

  it('a shorter mount gets what the longer one does not own', () => {
    const outer = owner('/device/other');
    const find = createMountTable({ '/device/': device, '': outer });
    expect(find('/device/other')).toMatchObject({ handler: outer, path: '/device/other' });
    expect(find('/device/stream')).toMatchObject({ handler: device, path: '/stream' });
  });

  it('under a base path; the mount itself is its `/`; a handler without owns() claims every path under it', () => {
    const any = {};
    const find = createMountTable({ 'svc/': any }, '/api/');
    expect(find('/api/svc')).toEqual({ handler: any, path: '/', prefix: '/api/svc' });
    expect(find('/api/svc/x/y')).toEqual({ handler: any, path: '/x/y', prefix: '/api/svc' });
    expect(find('/api/svcx')).toBeUndefined();
    expect(find('/svc/x')).toBeUndefined();
  });

  it('mountPrefix: one form for every way of writing a prefix', () => {
    expect([undefined, '', '/'].map(mountPrefix)).toEqual(['', '', '']);
    expect(['api', '/api', '/api/', 'api/'].map(mountPrefix)).toEqual(['/api', '/api', '/api', '/api']);
  });
});

describe('splitTarget', () => {
  it('origin form and absolute form; a target that is neither is the root', () => {
    expect(splitTarget('/a/b?c=1&d')).toEqual({ path: '/a/b', query: 'c=1&d' });
    expect(splitTarget('/a%ZZ')).toEqual({ path: '/a%ZZ', query: '' });
    expect(splitTarget('http://host:1/x?y')).toEqual({ path: '/x', query: 'y' });
    expect(splitTarget('*')).toEqual({ path: '/', query: '' });
  });
});
