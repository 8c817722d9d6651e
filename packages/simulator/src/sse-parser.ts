/**
 * An incremental parser of the server-sent-events wire format, for clients that read the
 * stream themselves (a browser's EventSource cannot send the `Authorization: Device` header).
 * Pure: the browser page and the Node tests use the same code.
 */
export interface SseMessage {
  event: string;
  data: string;
  id: string | null;
}

/** A line longer than this is a broken stream, not an event: the parser refuses to hoard it. */
const MAX_BUFFER = 1024 * 1024;

export class SseParser {
  /** The last `retry:` value seen, in milliseconds, or null. */
  retryMs: number | null = null;
  private buffer = '';
  /** The last line ended with a CR: an LF starting the next chunk belongs to it. */
  private afterCr = false;
  private event = '';
  private data: string[] = [];
  private id: string | null = null;

  /** Feeds decoded text; returns the messages it completed. */
  push(chunk: string): SseMessage[] {
    if (chunk === '') return [];
    this.buffer += this.afterCr && chunk.startsWith('\n') ? chunk.slice(1) : chunk;
    this.afterCr = false;
    const messages: SseMessage[] = [];
    for (let line = this.nextLine(); line !== null; line = this.nextLine()) {
      const message = this.takeLine(line);
      if (message !== null) messages.push(message);
    }
    if (this.buffer.length > MAX_BUFFER) throw new Error('event stream line too long');
    return messages;
  }

  /** Cuts one complete line off the buffer (LF, CRLF or CR), or null when none is complete yet. */
  private nextLine(): string | null {
    const end = this.buffer.search(/[\r\n]/);
    if (end < 0) return null;
    // A CR at the very end may be the first half of a CRLF split across chunks: remember it.
    if (this.buffer[end] === '\r' && end === this.buffer.length - 1) this.afterCr = true;
    const width = this.buffer.startsWith('\r\n', end) ? 2 : 1;
    const line = this.buffer.slice(0, end);
    this.buffer = this.buffer.slice(end + width);
    return line;
  }

  private takeLine(line: string): SseMessage | null {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return null; // a comment, e.g. the heartbeat
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id') this.id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
    return null;
  }

  private dispatch(): SseMessage | null {
    const message = this.data.length > 0 ? { event: this.event || 'message', data: this.data.join('\n'), id: this.id } : null;
    this.event = '';
    this.data = [];
    return message;
  }
}
