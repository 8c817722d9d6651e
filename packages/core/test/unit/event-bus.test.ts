import { describe, expect, it } from 'vitest';
import { createEventBus } from '../../src/events/event-bus.js';
import type { FramedEvent } from '../../src/events/frame-cache.js';
import type { Storage } from '../../src/storage/storage.js';

const noWakeUps = {} as Storage;
const event = (position: number): FramedEvent => ({ position, subject: 'widget/lights', type: 'widget.action.v1', expiresAt: 0, frame: '' });

describe('event bus', () => {
  it('wakes the listeners of the event’s account only, in subscription order', () => {
    const bus = createEventBus(noWakeUps);
    const seen: string[] = [];
    bus.subscribe('acme', (e) => seen.push(`a1:${e?.position}`));
    bus.subscribe('acme', (e) => seen.push(`a2:${e?.position}`));
    bus.subscribe('other', (e) => seen.push(`o:${e?.position}`));
    bus.notify('acme', event(1));
    bus.notify('nobody', event(2));
    expect(seen).toEqual(['a1:1', 'a2:1']);
  });

  it('a listener that unsubscribes itself or another during a wake-up skips no one in it, and is gone from the next', () => {
    const bus = createEventBus(noWakeUps);
    const seen: string[] = [];
    const stops: (() => void)[] = [];
    stops.push(bus.subscribe('acme', () => { seen.push('first'); stops[0]!(); stops[1]!(); }));
    stops.push(bus.subscribe('acme', () => seen.push('second')));
    stops.push(bus.subscribe('acme', () => seen.push('third')));
    bus.notify('acme', event(1));
    bus.notify('acme', event(2));
    expect(seen).toEqual(['first', 'second', 'third', 'third']);
  });

  it('unsubscribing twice removes one subscription once, even of the same function', () => {
    const bus = createEventBus(noWakeUps);
    let calls = 0;
    const listener = () => void calls++;
    const stop = bus.subscribe('acme', listener);
    bus.subscribe('acme', listener);
    stop();
    stop();
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
    bus.subscribe('acme', (e) => seen.push(e));
    fromStore!('acme');
    expect(seen).toEqual([undefined]);
    bus.close();
    fromStore!('acme');
    expect(seen).toEqual([undefined]);
    expect(unsubscribed).toBe(true);
  });
});
