/**
 * The whole loop over real HTTP against the reference server: a phone presses a tile,
 * the owner's SSE client (the `eventsource` package) receives the event, the owner
 * publishes the confirming content, and the phone's device stream receives it.
 */
import { EventSource } from 'eventsource';
import { afterEach, describe, expect, it } from 'vitest';
import { readConfig } from '../src/config.js';
import { startReferenceServer, type ReferenceServer } from '../src/index.js';
import { silentLogger } from '@tilecast/core';

const switchboard = (on: boolean) => ({
  template: 'switchboard',
  actions: [
    { id: 'hall', label: 'Hall', kind: 'toggle', on },
    { id: 'bell', label: 'Doorbell' },
  ],
});

function withAuth(authorization: string): typeof fetch {
  return (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization } });
}

/** Collects messages of an EventSource; `next` waits (bounded) for one that matches. */
function collect(source: EventSource, type: string) {
  const messages: MessageEvent[] = [];
  let wake: (() => void) | undefined;
  source.addEventListener(type, (message) => {
    messages.push(message as MessageEvent);
    wake?.();
  });
  let read = 0;
  return async (predicate: (data: any) => boolean, timeoutMs = 5_000): Promise<{ data: any; lastEventId: string }> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (read < messages.length) {
        const message = messages[read++]!;
        const data = JSON.parse(message.data);
        if (predicate(data)) return { data, lastEventId: message.lastEventId };
      }
      if (Date.now() > deadline) throw new Error(`no ${type} message matched`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        wake = () => (clearTimeout(timer), resolve());
      });
    }
  };
}

describe('reference server: press → event → confirm → device', () => {
  let server: ReferenceServer;
  const sources: EventSource[] = [];
  afterEach(async () => {
    for (const source of sources.splice(0)) source.close();
    await server?.close();
  });

  it('runs the loop end to end over HTTP', async () => {
    server = await startReferenceServer({ ...readConfig({ PORT: '0' }) }, silentLogger);
    const { token, deviceToken } = /API token (?<token>\S+)[\s\S]*device token (?<deviceToken>\S+)/.exec(server.banner)!.groups!;
    const owner = withAuth(`Token ${token}`);
    await owner(`${server.url}/widget/lights`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: switchboard(false) }),
    });

    const events = new EventSource(`${server.url}/events`, { fetch: owner });
    const phone = new EventSource(`${server.url}/device/stream`, { fetch: withAuth(`Device ${deviceToken}`) });
    sources.push(events, phone);
    const nextEvent = collect(events, 'message');
    const nextWidget = collect(phone, 'widget');
    await new Promise<void>((resolve) => (events.readyState === EventSource.OPEN ? resolve() : events.addEventListener('open', () => resolve())));
    expect((await nextWidget((d) => d.slug === 'lights')).data.content.actions[0].on).toBe(false); // snapshot

    const pressed = await fetch(`${server.url}/device/presses`, {
      method: 'POST',
      headers: { authorization: `Device ${deviceToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ owner: 'demo', slug: 'lights', request_id: 'tap-1', action: 'hall', value: true }),
    });
    expect(pressed.status).toBe(202);
    const { event_id } = (await pressed.json()) as { event_id: string };

    const event = await nextEvent((d) => d.id === event_id);
    expect(event.lastEventId).toBe('u:1');
    expect(event.data).toMatchObject({
      type: 'widget.action.v1',
      subject: { kind: 'widget', slug: 'lights' },
      data: { action: 'hall', kind: 'toggle', value: true },
    });

    // The owner confirms by publishing the true state; inside the throttle window, the
    // pressing phone still gets it at once.
    const confirmed = await owner(`${server.url}/widget/lights`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: switchboard(true) }),
    });
    expect(confirmed.status).toBe(200);
    expect((await nextWidget((d) => d.content.actions[0].on === true)).data).toMatchObject({ owner: 'demo', slug: 'lights' });
  });
});
