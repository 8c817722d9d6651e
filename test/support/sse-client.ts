/**
 * An SSE reader over fetch for tests: keeps each frame's raw text (the wire format under
 * test) and reads its fields with the client's parser; waits are bounded.
 */
import { SseParser } from '@tilecast/client/sse';

export interface SseFrame {
  /** Raw text of the frame (without the blank line that ends it). */
  raw: string;
  event?: string;
  id?: string;
  data?: string;
  retry?: number;
  comment?: string;
}

export interface SseConnection {
  status: number;
  headers: Headers;
  /** Body text when the response is not a stream (errors). */
  body: unknown;
  /** Every frame read so far. */
  frames: SseFrame[];
  /** Waits (bounded by `timeoutMs` of real time) for a frame matching `predicate`, after those already consumed. */
  next(predicate?: (frame: SseFrame) => boolean, timeoutMs?: number): Promise<SseFrame>;
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseConnection> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  const frames: SseFrame[] = [];
  let consumed = 0;
  let wake: (() => void) | undefined;
  let done = false;
  let endResolve!: () => void;
  const ended = new Promise<void>((resolve) => (endResolve = resolve));

  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // keep text
    }
    endResolve();
    return { status: response.status, headers: response.headers, body, frames, next: () => Promise.reject(new Error('not a stream')), ended, close() {} };
  }

  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          frames.push(parseFrame(buffer.slice(0, end)));
          buffer = buffer.slice(end + 2);
        }
        wake?.();
      }
    } catch {
      // aborted by close()
    }
    done = true;
    endResolve();
    wake?.();
  })();

  return {
    status: response.status,
    headers: response.headers,
    body: null,
    frames,
    ended,
    async next(predicate = () => true, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        while (consumed < frames.length) {
          const frame = frames[consumed++]!;
          if (predicate(frame)) return frame;
        }
        if (done) throw new Error(`stream ended before a matching frame; frames: ${JSON.stringify(frames.map((f) => f.raw))}`);
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw new Error(`no matching frame within ${timeoutMs} ms; frames: ${JSON.stringify(frames.map((f) => f.raw))}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, remaining);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    },
    close: () => controller.abort(),
  };
}

/** The frame's fields, as the one SSE parser (the client's) reads them. */
function parseFrame(raw: string): SseFrame {
  const frame: SseFrame = { raw };
  const parser = new SseParser(
    {
      message: (message) => Object.assign(frame, { event: message.event, data: message.data }),
      retry: (ms) => (frame.retry = ms),
      lastEventId: (id) => (frame.id = id),
      comment: (text) => (frame.comment = text),
    },
    undefined,
  );
  parser.push(`${raw}\n\n`);
  return frame;
}

export const dataOf = (frame: SseFrame): any => JSON.parse(frame.data ?? 'null');
