/**
 * The smart-home loop end to end over HTTP: a phone presses a tile, the event reaches
 * the example through `events()`, it switches its light and confirms with a PATCH, and
 * the phone's device stream receives the confirming content.
 */
import { createClient } from '@tilecast/client';
import { afterEach, describe, expect, it } from 'vitest';
import { openDeviceStream, press, startServer, TOKEN, type DeviceStream, type TestServer } from '../../../packages/client/test/e2e/server.js';
import { watchedFetch } from '../../../packages/client/test/e2e/watch.js';
import { demoHome, runSmartHome } from '../src/index.js';

const state = (push: any, id: string) => push.content.actions.find((action: any) => action.id === id);

describe('smart-home example', () => {
  let server: TestServer | undefined;
  let phone: DeviceStream | undefined;
  const stop = new AbortController();
  afterEach(async () => {
    stop.abort();
    phone?.close();
    await server?.cleanup();
  });

  it('confirms presses by publishing the true state of every light', async () => {
    server = await startServer();
    const { url } = server;
    const watched = watchedFetch();
    const home = demoHome();
    const log: string[] = [];
    const running = runSmartHome({
      client: createClient({ baseUrl: url, token: TOKEN, fetch: watched.fetch }),
      slug: 'lights',
      home,
      signal: stop.signal,
      log: (line) => log.push(line),
    });
    await watched.opened(1); // published, and listening

    phone = await openDeviceStream(url);
    const snapshot = await phone.next((push) => push.slug === 'lights');
    expect(snapshot.content.actions.map((action: any) => [action.id, action.kind, action.on ?? null])).toEqual([
      ['hall', 'toggle', false],
      ['kitchen', 'toggle', true],
      ['porch', 'toggle', false],
      ['doorbell', 'button', null],
    ]);

    // A toggle: the light switches, and the confirming content shows it on.
    await press(url, { slug: 'lights', request_id: 'tap-hall', action: 'hall', value: true });
    // (A push still trailing the start-up publishes shows the hall off, so it cannot match.)
    const hall = await phone.next((push) => push.slug === 'lights' && state(push, 'hall').on === true);
    expect(state(hall, 'hall').on).toBe(true);
    expect(home.lights[0]!.on).toBe(true);

    // A light that does not answer: still confirmed, with the truth (off), and every action sent.
    await press(url, { slug: 'lights', request_id: 'tap-porch', action: 'porch', value: true });
    const porch = await phone.next((push) => push.slug === 'lights' && state(push, 'hall').on === true);
    expect(state(porch, 'porch').on).toBe(false);
    expect(porch.content.actions).toHaveLength(4);
    expect(state(porch, 'hall').on).toBe(true);

    // A button: any update after the press confirms it.
    await press(url, { slug: 'lights', request_id: 'tap-bell', action: 'doorbell' });
    await phone.next((push) => push.slug === 'lights' && state(push, 'hall').on === true);
    expect(home.doorbellRings).toBe(1);
    expect(log).toEqual(['published lights; waiting for presses', 'Hall switched on', 'Porch did not answer; it stays off', 'doorbell rang']);

    stop.abort();
    await running; // ends quietly on abort
  });
});
