import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { WORKER_NICE_STEP } from '../../core/src/transport/push/thread-priority.js';
import { startApnsDouble, type ApnsDouble } from '@tilecast/transport-apns/test-double';
import { BUNDLE_ID, KEY_ID, rig, TEAM_ID, testSigningKey, TOKENS, until, widget, type Rig } from './support.js';

describe('transport-apns: connections in a worker thread', () => {
  let r: Rig;
  afterEach(() => r?.close());

  it('load() tells the streams open in the worker from the requests waiting for one', async () => {
    r = await rig({ connectionThread: 'worker', maxConcurrentStreams: 2 });
    r.double.answer({ answer: 'stall', times: 4 });
    const slugs = ['a', 'b', 'c', 'd']; // 2 × maxConcurrentStreams: all handed to the connection
    const all = Promise.all(slugs.map((slug) => r.transport.pushWidget('phone', widget({ slug }))));
    await r.double.waitForRequests(2);
    await until(() => {
      const load = r.transport.load()[r.double.origin];
      return load?.active === 2 && load.waiting === 2;
    }, '2 streams open and 2 requests waiting');
    r.double.releaseStalled();
    await r.double.waitForRequests(4); // the other two, stalled as well
    r.double.releaseStalled();
    await all;
    expect(r.transport.counters()).toMatchObject({ sent: 4, dropped: 0 });
    expect(r.transport.load()[r.double.origin]).toEqual({ active: 0, waiting: 0 });
  });

  it.skipIf(!existsSync('/proc/thread-self'))('the worker runs WORKER_NICE_STEP below the host in scheduling priority (Linux)', async () => {
    r = await rig({ connectionThread: 'worker' });
    const before = threadNices();
    await r.transport.pushWidget('phone', widget());
    const added = [...threadNices()].filter(([thread]) => !before.has(thread)).map(([, nice]) => nice);
    expect(added).toContain(Math.min(19, getPriority() + WORKER_NICE_STEP));
  });

  it('close() answers a stalled request at once and stops the worker', async () => {
    r = await rig({ connectionThread: 'worker' });
    r.double.answer({ answer: 'stall' });
    const sending = r.transport.pushWidget('phone', widget());
    await r.double.waitForRequests(1);
    await r.transport.close();
    await sending;
    expect(r.transport.counters()).toMatchObject({ sent: 0, dropped: 1 });
    expect(r.logs.some((l) => l.message === 'apns: push dropped (transport closed)')).toBe(true);
  });
});

/** The nice value of every thread of this process (Linux: field 19 of /proc/self/task/<id>/stat). */
function threadNices(): Map<string, number> {
  const nices = new Map<string, number>();
  for (const thread of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${thread}/stat`, 'utf8');
    nices.set(thread, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
  }
  return nices;
}

/**
 * The built package, as an app installs it (ESM and CJS): the worker is found beside the
 * entry, a push goes through it, and the process ends on its own without `close()`.
 */
describe('transport-apns: the built package in a host process', () => {
  let double: ApnsDouble;
  afterEach(() => double?.close());

  const dist = fileURLToPath(new URL('../dist/', import.meta.url));
  const host = (format: 'esm' | 'cjs') => {
    const load =
      format === 'esm' ? `const apns = await import(${JSON.stringify(`${dist}index.js`)});` : `const apns = require(${JSON.stringify(`${dist}index.cjs`)});`;
    const body = `
      const registry = apns.createMemoryApnsRegistry();
      registry.register('phone', { environment: 'sandbox', widgets: process.env.TOKEN });
      const transport = apns.createApnsTransport({
        teamId: ${JSON.stringify(TEAM_ID)}, keyId: ${JSON.stringify(KEY_ID)}, bundleId: ${JSON.stringify(BUNDLE_ID)},
        signingKey: process.env.KEY, registry, origin: process.env.ORIGIN, ca: process.env.CA,
      });
      await transport.pushWidget('phone', { owner: 'acme', slug: 'pump', content: { template: 'gauge', value: 1 }, stale_after: null, updated_at: new Date().toISOString(), privacy: 'visible' });
      console.log(JSON.stringify(transport.counters()));`;
    return format === 'esm' ? `${load}\n${body}` : `(async () => {\n${load}\n${body}\n})();`;
  };

  it.each(['esm', 'cjs'] as const)('%s: pushes through its worker, then lets the process exit without close()', async (format) => {
    const { privateKey, publicKey } = testSigningKey();
    double = await startApnsDouble({ teamId: TEAM_ID, keyId: KEY_ID, bundleId: BUNDLE_ID, publicKey }); // the real time, as the host's
    const env = { ...process.env, KEY: privateKey, ORIGIN: double.origin, CA: double.ca, TOKEN: TOKENS.widgets };
    const args = format === 'esm' ? ['--input-type=module', '-e', host('esm')] : ['-e', host('cjs')];
    const output = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, args, { env, timeout: 15_000 }, (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
      ),
    );
    expect(JSON.parse(output)).toMatchObject({ sent: 1, dropped: 0 });
    expect(double.received.map((g) => [g.deviceToken, g.status])).toEqual([[TOKENS.widgets, 200]]);
  });
});
