import { describe, expect, it } from 'vitest';
import { createEventBus, type AppendListener } from '../../src/events/event-bus.js';
import type { StoredEvent } from '../../src/storage/records.js';
import type { Storage } from '../../src/storage/storage.js';

const noWakeUps = {} as Storage;
const event = (position: number, envelope: Record<string, unknown> = { id: `e${position}` }): StoredEvent => ({
  position,
  id: `e${position}`,
  subject: 'widget/lights',
  type: 'widget.action.v1',
  expiresAt: 0,
  envelope,
});
const listener = (onAppend: AppendListener['onAppend']): AppendListener => ({ onAppend });

describe('event bus', () => {
  it('wakes the listeners of the event’s account only, in subscription order', () => {
    const bus = createEventBus(noWakeUps);
    const seen: string[] = [];
    bus.subscribe(
      'acme',
      listener((e) => seen.push(`a1:${e?.position}`)),
    );
    bus.subscribe(
      'acme',
      listener((e) => seen.push(`a2:${e?.position}`)),
    );
    bus.subscribe(
      'other',
      listener((e) => seen.push(`o:${e?.position}`)),
    );
    bus.notify('acme', event(1));
    bus.notify('nobody', event(2));
    expect(seen).toEqual(['a1:1', 'a2:1']);
  });

  it('hands every listener of the account one and the same frame of the event', () => {
    const bus = createEventBus(noWakeUps);
    const seen: unknown[] = [];
    bus.subscribe(
      'acme',
      listener((e) => seen.push(e)),
    );
    bus.subscribe(
      'acme',
      listener((e) => seen.push(e)),
    );
    bus.notify('acme', event(7));
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBe(seen[1]);
    expect(seen[0]).toEqual({ position: 7, subject: 'widget/lights', type: 'widget.action.v1', expiresAt: 0, frame: 'id: u:7\ndata: {"id":"e7"}\n\n' });
  });

  it('frames nothing for an account without listeners on this instance', () => {
    const bus = createEventBus(noWakeUps);
    let serialised = 0;
    const counted = { toJSON: () => (serialised++, { id: 'e1' }) };
    bus.subscribe(
      'other',
      listener(() => {}),
    );
    bus.notify('acme', event(1, counted));
    expect(serialised).toBe(0);
    bus.subscribe(
      'acme',
      listener(() => {}),
    );
    bus.notify('acme', event(2, counted));
    expect(serialised).toBe(1);
  });

  it('a listener that unsubscribes itself or another during a wake-up skips no one in it, and is gone from the next', () => {
    const bus = createEventBus(noWakeUps);
    const seen: string[] = [];
    const second = listener(() => seen.push('second'));
    const first: AppendListener = listener(() => {
      seen.push('first');
      bus.unsubscribe('acme', first);
      bus.unsubscribe('acme', second);
    });
    bus.subscribe('acme', first);
    bus.subscribe('acme', second);
    bus.subscribe(
      'acme',
      listener(() => seen.push('third')),
    );
    bus.notify('acme', event(1));
    bus.notify('acme', event(2));
    expect(seen).toEqual(['first', 'second', 'third', 'third']);
  });

  it('unsubscribing removes one subscription, and one that is not there is a no-op', () => {
    const bus = createEventBus(noWakeUps);
    let calls = 0;
    const counting = listener(() => void calls++);
    bus.subscribe('acme', counting);
    bus.subscribe('acme', counting);
    bus.unsubscribe('acme', counting);
    bus.unsubscribe('other', counting);
    bus.notify('acme');
    expect(calls).toBe(1);
    bus.unsubscribe('acme', counting);
    bus.unsubscribe('acme', counting);
    bus.notify('acme');
    expect(calls).toBe(1);
  });

  it('wake-ups from the store (other instances) carry no event', () => {
    let fromStore: ((accountId: string) => void) | undefined;
    let unsubscribed = false;
    const storage = {
      subscribeEvents: (fn: (accountId: string) => void) => {
        fromStore = fn;
        return () => void (unsubscribed = true);
      },
    } as unknown as Storage;
    const bus = createEventBus(storage);
    const seen: unknown[] = [];
    bus.subscribe(
      'acme',
      listener((e) => seen.push(e)),
    );
    fromStore!('acme');
    expect(seen).toEqual([undefined]);
    bus.close();
    fromStore!('acme');
    expect(seen).toEqual([undefined]);
    expect(unsubscribed).toBe(true);
  });
});
