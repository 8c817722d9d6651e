import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startFcmDouble, type FcmDouble } from '@tilecast/transport-fcm/test-double';
import { afterEach, describe, expect, it } from 'vitest';
import { CONNECTION_THREADS, PROJECT_ID, rig, testAccount, TOKENS, until, widget, type Rig } from './support.js';

describe.each(CONNECTION_THREADS)('transport-fcm: the connection (docs/contract/android-fcm.md#fcm-send) (on the %s thread)', (connectionThread) => {
  let r: Rig;
  afterEach(() => r?.close());

  it('one connection carries every send; at most maxConcurrentStreams are open, the rest wait in order', async () => {
    r = await rig({ connectionThread, maxConcurrentStreams: 3 });
    r.double.answer({ answer: 'stall', times: 6 });
    const slugs = Array.from({ length: 6 }, (_, i) => `w${i}`); // 2 × maxConcurrentStreams: all handed to the connection
    const all = Promise.all(slugs.map((slug) => r.transport.pushWidget('phone', widget({ slug }))));
    await r.double.waitForRequests(3);
    await until(() => {
      const load = r.transport.load()[r.double.origin];
      return load?.active === 3 && load.waiting === 3;
    }, '3 streams open and 3 requests waiting');
    expect(r.double.stats().openStreams).toBe(3);
    r.double.releaseStalled();
    await r.double.waitForRequests(6);
    r.double.releaseStalled();
    expect(new Set(await all)).toEqual(new Set(['delivered']));
    expect(r.double.stats().peakOpenStreams).toBeLessThanOrEqual(4); // the token request's stream, once, beside 3 sends at most
    expect(new Set(r.double.received.map((g) => g.connection)).size).toBe(1);
    expect(r.transport.load()[r.double.origin]).toEqual({ active: 0, waiting: 0 });
  });

  it('a fan-out of 300 pushes goes over one connection, never above the stream bound', async () => {
    r = await rig({ connectionThread, maxConcurrentStreams: 20 });
    for (let i = 0; i < 300; i++) r.registry.register(`device-${i}`, `${TOKENS.phone.slice(0, -4)}${String(i).padStart(4, '0')}`);
    const push = widget();
    const outcomes = await Promise.all(Array.from({ length: 300 }, (_, i) => r.transport.pushWidget(`device-${i}`, push)));
    expect(outcomes.filter((outcome) => outcome === 'delivered')).toHaveLength(300);
    expect(new Set(r.double.received.map((g) => g.connection)).size).toBe(1);
    expect(r.double.stats().peakOpenStreams).toBeLessThanOrEqual(21);
    expect(r.double.tokenRequests).toHaveLength(1);
  });

  it('a connection lost (GOAWAY) is replaced, the push retried on the new one', async () => {
    r = await rig({ connectionThread, retryBaseMs: 10 });
    await r.transport.pushWidget('other', widget());
    r.double.answer({ answer: 'goaway' });
    const sending = r.transport.pushWidget('phone', widget());
    await until(() => r.transport.counters().retried === 1, 'the retry');
    r.clock.advance(8);
    expect(await sending).toBe('delivered');
    const sends = r.double.received.map((g) => [g.connection, g.status]);
    expect(sends[0]![1]).toBe(200);
    expect(sends[1]![1]).toBe(0);
    expect(sends[2]![1]).toBe(200);
    expect(sends[2]![0]).not.toBe(sends[0]![0]);
    expect(r.transport.counters()).toMatchObject({ sent: 2, retried: 1, reconnects: 1 });
  });
});

/**
 * The built package, as an app installs it (ESM and CJS): the worker is found beside the
 * entry, a push goes through it, and the process ends on its own without `close()`.
 */
describe('transport-fcm: the built package in a host process', () => {
  let double: FcmDouble;
  afterEach(() => double?.close());

  const dist = fileURLToPath(new URL('../dist/', import.meta.url));
  const host = (format: 'esm' | 'cjs') => {
    const load =
      format === 'esm' ? `const fcm = await import(${JSON.stringify(`${dist}index.js`)});` : `const fcm = require(${JSON.stringify(`${dist}index.cjs`)});`;
    const body = `
      const registry = fcm.createMemoryFcmRegistry();
      registry.register('phone', process.env.TOKEN);
      const transport = fcm.createFcmTransport({ serviceAccount: process.env.ACCOUNT, registry, origin: process.env.ORIGIN, tokenOrigin: process.env.ORIGIN, ca: process.env.CA });
      const outcome = await transport.pushWidget('phone', { owner: 'acme', slug: 'pump', content: { template: 'gauge', value: 1 }, stale_after: null, updated_at: new Date().toISOString(), privacy: 'visible' });
      console.log(JSON.stringify({ outcome, ...transport.counters() }));`;
    return format === 'esm' ? `${load}\n${body}` : `(async () => {\n${load}\n${body}\n})();`;
  };

  it.each(['esm', 'cjs'] as const)('%s: pushes through its worker, then lets the process exit without close()', async (format) => {
    const account = testAccount();
    double = await startFcmDouble({ projectId: PROJECT_ID, clientEmail: account.serviceAccount.client_email, publicKey: account.publicKey }); // the real time, as the host's
    const env = { ...process.env, ACCOUNT: account.json, ORIGIN: double.origin, CA: double.ca, TOKEN: TOKENS.phone };
    const args = format === 'esm' ? ['--input-type=module', '-e', host('esm')] : ['-e', host('cjs')];
    const output = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, args, { env, timeout: 15_000 }, (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
      ),
    );
    expect(JSON.parse(output)).toMatchObject({ outcome: 'delivered', sent: 1, dropped: 0, accessTokens: 1 });
    expect(double.received.map((g) => [g.registrationToken, g.status])).toEqual([[TOKENS.phone, 200]]);
  });
});
