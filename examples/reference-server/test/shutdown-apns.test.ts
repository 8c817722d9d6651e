/**
 * Graceful shutdown of the built server (`node dist/main.js`) while APNs misbehaves: with
 * the test double stalling every push, or answering `429` with `retry-after: 3000`, a
 * SIGTERM in the middle of a fan-out still ends the process with exit code 0 within
 * TILECAST_SHUTDOWN_GRACE_MS plus a small bound, every documented step logged, and the
 * pushes not sent counted as dropped. On both stores.
 *
 * The exit time is measured with the wall clock: the behaviour under test is a child
 * process's, which no fake clock reaches.
 */
import type { ChildProcess } from 'node:child_process';
import type { DoubleAnswer } from '@tilecast/transport-apns/test-double';
import { afterEach, describe, expect, it } from 'vitest';
import { startApnsDemo, type ApnsDemo } from '../src/apns-demo.js';
import { storeSettings } from './store-settings.js';
import { writeLightsSeed } from './fixtures.js';
import { expectLoggedInOrder } from './log-events.js';
import { type RunningServer, startBuiltServer } from './built-server.js';

/** Short, so that the test is quick; the bound is generous, so that a busy machine does not fail it. */
const GRACE_MS = 1000;
const BOUND_MS = 3000;
const DEVICES = 6;

const stores = storeSettings('shutdown');

type Running = RunningServer;

const devices = Array.from({ length: DEVICES }, (_, i) => ({ id: `phone-${i}`, token: `dev_phone_${i}`, widgets: `${(i + 10).toString(16)}`.repeat(32) }));

async function start(dir: string, env: Record<string, string>): Promise<Running> {
  const seed = await writeLightsSeed(dir, devices);
  return startBuiltServer({ TILECAST_SEED: seed, LOG_LEVEL: 'info', ...env });
}

const send = (method: string, url: string, authorization: string, body: unknown) =>
  fetch(url, { method, headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** Resolves with the exit, or with `running` once `ms` have passed (the process is then killed by afterEach). */
const exitWithin = (server: Running, ms: number) =>
  Promise.race([server.exited, new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), ms).unref())]);

const misbehaviours: Array<[string, DoubleAnswer]> = [
  ['stalls every push', 'stall'],
  ['answers 429 with retry-after: 3000', { status: 429, reason: 'TooManyRequests', retryAfter: '3000' }],
];

describe('graceful shutdown of the built server while APNs misbehaves', () => {
  const running: ChildProcess[] = [];
  let demo: ApnsDemo | undefined;
  afterEach(async () => {
    for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await demo?.close();
    demo = undefined;
  });

  for (const [storeName, storeEnv] of stores) {
    for (const [misbehaviour, answer] of misbehaviours) {
      it(`${storeName} store, APNs ${misbehaviour}: SIGTERM mid-fan-out exits 0 within the grace plus ${BOUND_MS} ms, each step logged, unsent pushes dropped`, async () => {
        demo = await startApnsDemo();
        demo.double.answer({ answer, times: 1_000 });
        const server = await start(demo.dir, { ...storeEnv(), ...demo.env, TILECAST_SHUTDOWN_GRACE_MS: String(GRACE_MS) });
        running.push(server.child);
        for (const device of devices) {
          const registered = await send('PUT', `${server.url}/device/push`, `Device ${device.token}`, { environment: 'sandbox', widgets: device.widgets });
          expect(registered.status).toBe(204);
        }
        const patched = await send('PATCH', `${server.url}/widget/lights`, 'Token tok_acme_1', {
          content: { template: 'switchboard', actions: [{ id: 'bell', label: 'Bell' }] },
        });
        expect(patched.status).toBe(200);
        // Mid-fan-out: every device's push reached APNs and none was answered `200`.
        await demo.double.waitForRequests(DEVICES);

        const sent = Date.now();
        server.child.kill('SIGTERM');
        const exit = await exitWithin(server, GRACE_MS + BOUND_MS);
        const elapsed = Date.now() - sent;
        expect(exit, `still running ${GRACE_MS + BOUND_MS} ms after SIGTERM:\n${server.output()}`).toEqual({ code: 0, signal: null });
        expect(elapsed).toBeLessThan(GRACE_MS + BOUND_MS);

        const steps = [
          { msg: 'shutdown: signal received', signal: 'SIGTERM' },
          { msg: 'shutdown: draining, /readyz answers 503' },
          { msg: 'shutdown: stopped accepting connections' },
          { msg: 'shutdown: ended open streams with a last retry' },
          { msg: 'shutdown: grace period over, cutting what is left', grace_ms: GRACE_MS },
          { msg: 'shutdown: Tilecast closed' },
          { msg: 'shutdown: APNs closed, unsent pushes dropped', dropped: DEVICES },
          { msg: 'shutdown: store closed' },
          { msg: 'shutdown: done, exiting' },
        ];
        expectLoggedInOrder(server.output(), steps);
      });
    }
  }
});
