import { describe, expect, it } from 'vitest';
import type { SseSink } from '../../src/http/types.js';
import { MAX_QUEUED_BYTES, openSseConnection } from '../../src/sse/connection.js';
import { sseEvent } from '../../src/sse/format.js';
import { createManualClock } from '../../../../test/support/manual-clock.js';

function fakeSink(): SseSink & { written: string[]; ended: boolean; queued: number; controller: AbortController } {
  const controller = new AbortController();
  const sink = {
    written: [] as string[],
    ended: false,
    queued: 0,
    controller,
    get bufferedBytes() {
      return sink.queued;
    },
    signal: controller.signal,
    async write(text: string) {
      sink.written.push(text);
      sink.queued += text.length;
    },
    end() {
      sink.ended = true;
    },
  };
  return sink;
}

const timings = { pingMs: 20_000, lifetimeMs: 900_000 };

describe('SSE connection', () => {
  it('a sink with onClose is watched through it alone (its signal is never read)', () => {
    const clock = createManualClock();
    const closers: (() => void)[] = [];
    const { signal: _unused, ...rest } = Object.getOwnPropertyDescriptors(fakeSink());
    const sink = Object.defineProperties({}, rest) as unknown as SseSink & { ended: boolean };
    Object.defineProperty(sink, 'signal', { get: () => expect.unreachable('signal read') });
    sink.onClose = (fn) => void closers.push(fn);
    const connection = openSseConnection(sink, clock, timings);
    let ends = 0;
    connection.onEnd(() => ends++);
    expect(closers).toHaveLength(1);
    closers[0]!();
    expect(connection.ended).toBe(true);
    expect(ends).toBe(1);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('pings after 20 s without writes, and every write postpones the ping', async () => {
    const clock = createManualClock();
    const sink = fakeSink();
    const connection = openSseConnection(sink, clock, timings);
    clock.advance(19_999);
    await connection.send('data: 1\n\n');
    clock.advance(19_999);
    expect(sink.written).toEqual(['data: 1\n\n']);
    clock.advance(1);
    expect(sink.written).toEqual(['data: 1\n\n', ': ping\n\n']);
    clock.advance(20_000);
    expect(sink.written.filter((t) => t === ': ping\n\n')).toHaveLength(2);
    connection.end();
  });

  it('ends after its lifetime, once, and stops its timers', () => {
    const clock = createManualClock();
    const sink = fakeSink();
    const connection = openSseConnection(sink, clock, timings);
    let ends = 0;
    connection.onEnd(() => ends++);
    clock.advance(899_999);
    expect(connection.ended).toBe(false);
    clock.advance(1);
    expect(connection.ended).toBe(true);
    expect(sink.ended).toBe(true);
    connection.end();
    expect(ends).toBe(1);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('ends a stream whose client stopped reading once more than 1 MiB is queued', async () => {
    const clock = createManualClock();
    const sink = fakeSink();
    const connection = openSseConnection(sink, clock, timings);
    const event = sseEvent({ id: 'u:1', data: { padding: 'x'.repeat(1000) } });
    let sent = 0;
    while (!connection.ended && sent < 5000) {
      await connection.send(event);
      sent++;
    }
    expect(connection.ended).toBe(true);
    expect(sink.queued).toBeGreaterThan(MAX_QUEUED_BYTES);
    expect(sink.queued).toBeLessThanOrEqual(MAX_QUEUED_BYTES + event.length);
  });

  it('ends when the client goes away, and wakes a waiting loop', async () => {
    const clock = createManualClock();
    const sink = fakeSink();
    const connection = openSseConnection(sink, clock, timings);
    const waiting = connection.nextWake();
    sink.controller.abort();
    await waiting;
    expect(connection.ended).toBe(true);
  });

  it('keeps a wake-up that came while the loop was busy', async () => {
    const connection = openSseConnection(fakeSink(), createManualClock(), timings);
    connection.wake();
    await connection.nextWake(); // resolves at once
    let woke = false;
    const next = connection.nextWake().then(() => (woke = true));
    await Promise.resolve();
    expect(woke).toBe(false);
    connection.wake();
    await next;
    expect(woke).toBe(true);
    connection.end();
  });
});

describe('SSE framing', () => {
  it('data is one line of JSON, whatever the payload holds', () => {
    const text = sseEvent({ id: 'u:7', data: { evil: 'a\nid: u:999\r\ndata: x\u2028' } });
    expect(text.split('\n')).toEqual(['id: u:7', expect.stringMatching(/^data: \{.*\}$/s), '', '']);
    expect(JSON.parse(text.split('\n')[1]!.slice(6))).toEqual({ evil: 'a\nid: u:999\r\ndata: x\u2028' });
  });
});
