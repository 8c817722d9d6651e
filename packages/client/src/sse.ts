/**
 * The one server-sent-events parser of Tilecast (the client, the simulator page and the
 * tests use it), following the WHATWG event-stream interpretation rules. It is ours, not
 * `EventSource`, because a browser `EventSource` cannot send the `Authorization` header
 * the streams require; and not `eventsource-parser`, which drops the `id:` of an event
 * without data, while Tilecast's streams open with exactly such an event (`id: u:0`, the
 * position to resume from). No dependencies: it runs in browsers and Node.
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
  /** A comment line (such as the `: ping` heartbeat), without its colon and one leading space. */
  comment?(text: string): void;
}

/** A line longer than this is a broken stream, not an event: the parser refuses to hoard it. */
export const SSE_MAX_LINE = 1024 * 1024;

export class SseLineTooLongError extends Error {
  constructor() {
    super(`event stream line longer than ${SSE_MAX_LINE} characters`);
    this.name = 'SseLineTooLongError';
  }
}

/**
 * Feeds decoded text in, calls the handlers as fields and messages complete. Throws
 * `SseLineTooLongError` when a line grows past `SSE_MAX_LINE` without ending.
 */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private idBuffer: string | undefined;
  private first = true;
  /** The last chunk ended with a CR: an LF starting the next one belongs to it. */
  private afterCr = false;

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
    // A CR ends its line at once; an LF right after it, even in the next chunk, is the rest of a CRLF.
    const lfOfCrlf = this.afterCr && text.startsWith('\n');
    if (text.length > 0) this.afterCr = false;
    if (lfOfCrlf) text = text.slice(1);
    this.buffer += text;
    let start = 0;
    for (;;) {
      const end = lineEnd(this.buffer, start);
      if (end === -1) break;
      this.line(this.buffer.slice(start, end));
      const crlf = this.buffer[end] === '\r' && this.buffer[end + 1] === '\n';
      start = crlf ? end + 2 : end + 1;
      this.afterCr = this.buffer[end] === '\r' && start === this.buffer.length;
    }
    this.buffer = this.buffer.slice(start);
    if (this.buffer.length > SSE_MAX_LINE) throw new SseLineTooLongError();
  }

  private line(line: string): void {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return this.handlers.comment?.(line.startsWith(': ') ? line.slice(2) : line.slice(1));
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

/** Index of the next CR or LF at or after `from`, or -1. */
function lineEnd(buffer: string, from: number): number {
  for (let index = from; index < buffer.length; index++) {
    const char = buffer[index];
    if (char === '\n' || char === '\r') return index;
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
