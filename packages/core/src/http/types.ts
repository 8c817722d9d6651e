/**
 * The neutral seam between an HTTP framework and the core. Adapters translate
 * their request into a `CoreRequest` and write the `CoreResult` back; every status
 * code and rule lives in the core.
 */

import type { ServiceError } from '../errors.js';

export type HeaderValue = string | string[] | undefined;

export interface CoreRequest {
  /** Upper-case HTTP method. */
  method: string;
  /** Path relative to where Tilecast is mounted, starting with `/`, without query. */
  path: string;
  query: URLSearchParams;
  /** Header names in lower case. */
  headers: Record<string, HeaderValue>;
  /** The request body, read lazily by the core (which decides if and how to read it). */
  body: RequestBody;
  /** Aborted when the client goes away. */
  signal?: AbortSignal;
  /**
   * Optional, and cheaper than `signal` where the core only needs to be told: calls `fn`
   * once when the connection closes (at once if it has), whether the client went away or
   * the answer was complete. The Node adapters have it; an event stream uses it instead
   * of `signal` (an AbortSignal kept for every open stream is memory for nothing).
   */
  onClose?(fn: () => void): void;
}

export type RequestBody =
  /**
   * Raw bytes, read on demand. `read(limit)` resolves with the whole body, or with
   * `'too_large'` as soon as more than `limit` bytes are announced or received (the
   * rest is not buffered), or with `'aborted'` when the client went away before the
   * body's end (the core logs an abort and answers no one).
   */
  | { kind: 'raw'; read(limit: number): Promise<Uint8Array | 'too_large' | 'aborted'> }
  /** A body the host framework already parsed (e.g. express.json()), with its byte size if known. */
  | { kind: 'parsed'; value: unknown; byteLength?: number }
  /**
   * The host framework's body parser refused the body (e.g. express.json() on bad JSON).
   * The core raises this refusal when the handler reads the body, so the order of
   * checks (authentication first) holds whatever parsed the body.
   */
  | { kind: 'refused'; error: ServiceError };

export interface SseSink {
  /** Queues raw SSE text for the client; resolves at once (the core watches `bufferedBytes`). */
  write(text: string): Promise<void>;
  /** Bytes queued and not yet flushed to the client. */
  readonly bufferedBytes: number;
  /** Aborted when the client disconnects or the stream is ended. */
  readonly signal: AbortSignal;
  /**
   * Optional, and cheaper than `signal`: calls `fn` once when the client disconnects or the
   * stream is ended (at once if it has). A sink that has it is watched through it alone.
   */
  onClose?(fn: () => void): void;
  /** Ends the response. Idempotent. */
  end(): void;
}

export type CoreResult =
  | { kind: 'json'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'empty'; status: number; headers?: Record<string, string> }
  | { kind: 'sse'; headers?: Record<string, string>; run(sink: SseSink): Promise<void> };
