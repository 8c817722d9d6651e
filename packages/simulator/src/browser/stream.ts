/**
 * Reads `GET /device/stream` with fetch and a streaming reader: a browser's EventSource
 * cannot send the `Authorization: Device` header. Reconnects after the stream's `retry:`
 * delay, backing off while attempts fail.
 */
import { SseParser, type SseMessage } from '@tilecast/client/sse';
import { sleep } from './presses.js';

export interface StreamHandlers {
  onMessage(message: SseMessage): void;
  onStatus(text: string, state: 'connecting' | 'open' | 'retrying' | 'stopped'): void;
}

/** Bounded: at the server's 15-minute stream lifetime this covers months of reconnects. */
const MAX_CONNECTIONS = 10_000;
const MAX_BACKOFF_MS = 30_000;

export async function runDeviceStream(token: string, handlers: StreamHandlers, signal: AbortSignal): Promise<void> {
  let retryMs = 1000;
  let failures = 0;
  for (let connection = 0; connection < MAX_CONNECTIONS && !signal.aborted; connection++) {
    handlers.onStatus('connecting…', 'connecting');
    const outcome = await readStream(token, handlers, signal);
    if (outcome.retryMs !== null) retryMs = outcome.retryMs;
    if (outcome.kind === 'unauthorized') return handlers.onStatus('the device token was refused (401)', 'stopped');
    if (signal.aborted) return;
    failures = outcome.kind === 'ended' ? 0 : failures + 1;
    const wait = Math.min(MAX_BACKOFF_MS, retryMs * 2 ** Math.min(failures, 5));
    handlers.onStatus(`${outcome.kind === 'ended' ? 'stream ended' : 'connection failed'}; reconnecting in ${Math.round(wait / 100) / 10} s`, 'retrying');
    await sleep(wait, signal);
  }
  handlers.onStatus('stopped', 'stopped');
}

interface Outcome {
  kind: 'ended' | 'failed' | 'unauthorized';
  retryMs: number | null;
}

async function readStream(token: string, handlers: StreamHandlers, signal: AbortSignal): Promise<Outcome> {
  let retryMs: number | null = null;
  const parser = new SseParser({ message: handlers.onMessage, retry: (ms) => (retryMs = ms), lastEventId: () => {} }, undefined);
  try {
    const response = await fetch('/device/stream', { headers: { authorization: `Device ${token}`, accept: 'text/event-stream' }, signal });
    if (response.status === 401) return { kind: 'unauthorized', retryMs: null };
    if (!response.ok || response.body === null) return { kind: 'failed', retryMs: null };
    handlers.onStatus('connected', 'open');
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { kind: 'ended', retryMs };
      parser.push(value);
    }
  } catch {
    return { kind: 'failed', retryMs };
  }
}
