/**
 * A server-sent-events parser over a fetch body, following the WHATWG event-stream
 * interpretation rules. It is ours, not `EventSource`, because a browser `EventSource`
 * cannot send the `Authorization` header the event stream requires.
 */

/** One dispatched message. `lastEventId` is the stream's last `id:` at dispatch time. */
export interface SseMessage {
  event: string;
  data: string;
  lastEventId: string | undefined;
}

export interface SseHandlers {
  message(message: SseMessage): void;
  /** A valid `retry:` field: the reconnection delay in milliseconds. */
  retry(ms: number): void;
  /** The last event id changed (on dispatch, even of an event without data). */
  lastEventId(id: string): void;
}

/** Feeds decoded text in, calls the handlers as fields and messages complete. */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private idBuffer: string | undefined;
  private first = true;

  constructor(
    private readonly handlers: SseHandlers,
    /** The id the stream resumes from: kept until the stream sends another. */
    private lastEventId: string | undefined,
  ) {
    this.idBuffer = lastEventId;
  }

  push(text: string): void {
    if (this.first && text.length > 0) {
      this.first = false;
      if (text.startsWith('\uFEFF')) text = text.slice(1);
    }
    this.buffer += text;
    let start = 0;
    for (;;) {
      const end = lineEnd(this.buffer, start);
      if (end === -1) break;
      this.line(this.buffer.slice(start, end));
      // CRLF is one line ending; a CR at the very end of the buffer waits for the next chunk.
      start = this.buffer[end] === '\r' && this.buffer[end + 1] === '\n' ? end + 2 : end + 1;
    }
    this.buffer = this.buffer.slice(start);
  }

  private line(line: string): void {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return; // comment, e.g. `: ping`
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    this.field(field, value);
  }

  private field(field: string, value: string): void {
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.idBuffer = value;
    else if (field === 'retry' && /^[0-9]+$/.test(value)) this.handlers.retry(Number(value));
  }

  private dispatch(): void {
    if (this.idBuffer !== this.lastEventId && this.idBuffer !== undefined) {
      this.lastEventId = this.idBuffer;
      this.handlers.lastEventId(this.idBuffer);
    }
    const data = this.data;
    const event = this.event;
    this.data = [];
    this.event = '';
    if (data.length === 0) return;
    this.handlers.message({ event: event || 'message', data: data.join('\n'), lastEventId: this.lastEventId });
  }
}

/** Index of the next CR or LF at or after `from`, or -1. A trailing lone CR waits: it may be half a CRLF. */
function lineEnd(buffer: string, from: number): number {
  for (let index = from; index < buffer.length; index++) {
    const char = buffer[index];
    if (char === '\n') return index;
    if (char === '\r') return index + 1 < buffer.length ? index : -1;
  }
  return -1;
}

/** Reads a fetch body to its end, handing each message to `onMessage` as soon as it completes. */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  handlers: Omit<SseHandlers, 'message'>,
  lastEventId: string | undefined,
): AsyncGenerator<SseMessage> {
  const queue: SseMessage[] = [];
  const parser = new SseParser({ ...handlers, message: (message) => queue.push(message) }, lastEventId);
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      parser.push(done ? decoder.decode() : decoder.decode(value, { stream: true }));
      while (queue.length > 0) yield queue.shift()!;
      if (done) return;
    }
  } finally {
    // Ends the connection when the consumer stops early; harmless after the end.
    reader.cancel().catch(() => {});
  }
}
