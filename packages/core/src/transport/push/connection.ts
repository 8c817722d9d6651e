import { connect, constants, type ClientHttp2Session, type ClientHttp2Stream, type OutgoingHttpHeaders } from 'node:http2';
import type { Clock } from '../../clock.js';
import { Deadlines, type Deadline } from './deadlines.js';
import { Fifo } from './fifo.js';
import type { PushRequest, RequestFormat } from './request-format.js';
import type { WorkerSettings } from './worker-protocol.js';

/** What one request to a push service came to. */
export type PushAnswer =
  /** An HTTP answer: its status, the reason its body gives (see `RequestFormat.reason`) and its `retry-after`. */
  | { kind: 'answer'; status: number; reason: string | null; retryAfter: string | null }
  /** The stream or the connection failed before an answer (socket error, GOAWAY, reset). */
  | { kind: 'network'; error: string }
  /** No answer within the request timeout; the stream was cancelled. */
  | { kind: 'timeout' }
  /** Never sent: a newer request with the same key took its place while it waited. */
  | { kind: 'withdrawn' };

/** The answer to a request made or still waiting when the connections were closed (shared, frozen). */
export const TRANSPORT_CLOSED: PushAnswer = Object.freeze({ kind: 'network', error: 'transport closed' });

/** The answer to a request whose place a newer one with the same key took (shared, frozen). */
export const WITHDRAWN: PushAnswer = Object.freeze({ kind: 'withdrawn' });

/** What every connection of a transport is made with, whatever its origin (the pool's and the worker's alike). */
export interface ConnectionSettings<R extends PushRequest> extends WorkerSettings {
  /** What the requests are made of (headers, body) and how an answer's reason is read. */
  format: RequestFormat<R>;
  clock: Clock;
  /** Source of the reconnect jitter, in [0, 1). */
  random: () => number;
}

export interface ConnectionOptions<R extends PushRequest> extends ConnectionSettings<R> {
  origin: string;
  /** Called when a connection replaces one that was lost (GOAWAY, error, close). */
  onReconnect: () => void;
}

/** Requests waiting for a stream started per turn of the event loop at most (docs/decisions/0058-apns-pacing.md). */
const STARTS_PER_TURN = 16;

/** How much of an answer's body is kept for its reason (APNs's are tens of bytes, FCM's hundreds). */
const MAX_ANSWER_BYTES = 8192;

/** The wait before the connection that follows the first one lost without an answer. */
export const RECONNECT_BASE_MS = 1000;
/** The longest wait between two connections, however many were lost in a row. */
export const RECONNECT_MAX_MS = 60_000;

/**
 * How long to wait before opening a connection after `failures` in a row were lost without
 * a single answer (GOAWAY on connect, TLS refused, reset): doubling from RECONNECT_BASE_MS
 * up to RECONNECT_MAX_MS, jittered in [half, whole) so that instances do not come back in
 * step. Apple treats rapid reconnects as abuse, and Google asks for exponential backoff.
 */
export function reconnectDelayMs(failures: number, random: () => number): number {
  const whole = Math.min(RECONNECT_MAX_MS, RECONNECT_BASE_MS * 2 ** Math.max(0, failures - 1));
  return whole / 2 + (random() * whole) / 2;
}

/**
 * One HTTP/2 connection to a push service's origin (APNs, FCM), reused for every request and replaced when
 * it is lost. At most `maxConcurrentStreams` streams are open (or fewer when the
 * server's SETTINGS say so); requests beyond wait for a free stream, first come first
 * served, except that a request takes the place of a waiting one with the same key (the
 * newer push of a device and an activity or widget: docs/contract/apns.md#apns-latest-wins),
 * which answers WITHDRAWN. One stream per key at a time: a request whose key is on a stream
 * is held until that stream's answer, then queued (two streams of one key could arrive in
 * either order, and the device would end on the older content). A connection lost before
 * any answer makes the next one wait (see
 * `reconnectDelayMs`); requests wait meanwhile, as for a stream. The connection keeps the
 * process alive only while streams are open.
 */
export class Http2Connection<R extends PushRequest> {
  private session: ClientHttp2Session | null = null;
  private connectedOnce = false;
  /** Sessions that received at least one answer: their loss is not a failed connection. */
  private readonly answeredOn = new WeakSet<ClientHttp2Session>();
  /** Connections lost in a row without an answer, and the time before which none is opened. */
  private failures = 0;
  private reconnectAt = 0;
  private reconnectTimer: unknown = undefined;
  private active = 0;
  /** Requests waiting for a stream, in order, and the same entries by key. */
  private readonly waiting = new Fifo<StreamWait<R>>();
  private readonly waitingByKey = new Map<string, StreamWait<R>>();
  /**
   * The keys on a stream now, each with the newer request of its key held until that
   * stream's answer (undefined when none is held).
   */
  private readonly streaming = new Map<string, StreamWait<R> | undefined>();
  private held = 0;
  private lastAnswerAt = 0;
  private closed = false;
  private pumpScheduled = false;
  private readonly deadlines: Deadlines;

  constructor(private readonly options: ConnectionOptions<R>) {
    this.deadlines = new Deadlines(options.clock, options.requestTimeoutMs);
  }

  /** Streams open now and requests waiting for one, or for their key's stream (for tests and diagnostics). */
  load(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.size + this.held };
  }

  /** Sends the push with `authorization` (the provider's or access token's header) and answers what came of it. */
  request(request: R, authorization: string): Promise<PushAnswer> {
    if (this.streaming.size > 0 && this.streaming.has(request.key)) return this.hold(request, authorization);
    // A free stream is taken at once: no promise is made for a wait when there is none.
    if (this.canStart() && this.waiting.size === 0) {
      this.take();
      return this.sendOnTaken(request, authorization);
    }
    const waited = new Promise<PushAnswer>((resolve) => {
      const queued = this.waitingByKey.get(request.key);
      if (queued === undefined) {
        const entry: StreamWait<R> = { request, authorization, resolve };
        this.waiting.push(entry);
        this.waitingByKey.set(request.key, entry);
        return;
      }
      // The newer request takes the older one's place in the queue; the older one is never sent.
      takePlace(queued, request, authorization, resolve);
    });
    if (this.backingOff()) this.wakeAtReconnect();
    return waited;
  }

  /** Holds `request` until the stream of its key answers; a newer one takes its place meanwhile. */
  private hold(request: R, authorization: string): Promise<PushAnswer> {
    return new Promise<PushAnswer>((resolve) => {
      const older = this.streaming.get(request.key);
      if (older === undefined) {
        this.streaming.set(request.key, { request, authorization, resolve });
        this.held += 1;
        return;
      }
      takePlace(older, request, authorization, resolve);
    });
  }

  /** The stream of `key` answered: the request held for it, if any, joins the queue for a stream. */
  private streamDone(key: string): void {
    const held = this.streaming.get(key);
    this.streaming.delete(key);
    if (held === undefined) return;
    this.held -= 1;
    this.waiting.push(held);
    this.waitingByKey.set(key, held);
  }

  /**
   * Ends the connection now: its open streams fail at once (their requests answer
   * `network`), rather than when the service answers them, which a stalled server never does.
   */
  close(): void {
    this.closed = true;
    if (this.reconnectTimer !== undefined) this.options.clock.clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    this.session?.destroy();
    this.session = null;
    this.waitingByKey.clear();
    for (let entry = this.waiting.shift(); entry !== undefined; entry = this.waiting.shift()) entry.resolve(TRANSPORT_CLOSED);
    for (const held of this.streaming.values()) held?.resolve(TRANSPORT_CLOSED);
    this.streaming.clear();
    this.held = 0;
  }

  /** A request may start now: a stream is free, and no connection is being waited for. */
  private canStart(): boolean {
    return this.closed || (this.active < this.limit() && !this.backingOff());
  }

  /** No connection to use, and the last ones were lost too recently to open another. */
  private backingOff(): boolean {
    const usable = this.session !== null && !this.session.closed && !this.session.destroyed;
    return !usable && this.options.clock.now() < this.reconnectAt;
  }

  /** Waiting requests start once a connection may be opened again (one timer at a time). */
  private wakeAtReconnect(): void {
    if (this.reconnectTimer !== undefined || this.closed) return;
    const { clock } = this.options;
    this.reconnectTimer = clock.setTimeout(
      () => {
        this.reconnectTimer = undefined;
        this.schedulePump();
      },
      Math.max(0, this.reconnectAt - clock.now()),
    );
  }

  /** A session ended: without a single answer it is a failed connection, and the next one waits longer. */
  private lost(session: ClientHttp2Session): void {
    if (this.answeredOn.has(session)) {
      this.failures = 0;
      this.reconnectAt = 0;
      return;
    }
    this.failures += 1;
    this.reconnectAt = this.options.clock.now() + reconnectDelayMs(this.failures, this.options.random);
    if (this.waiting.size > 0) this.wakeAtReconnect();
  }

  private limit(): number {
    const remote = this.session?.remoteSettings?.maxConcurrentStreams;
    return Math.max(1, Math.min(this.options.maxConcurrentStreams, remote ?? Infinity));
  }

  private take(): void {
    this.active += 1;
    if (this.active === 1) this.keepAlive();
  }

  /**
   * A stream is given back as its answer is known; waiting requests take the freed
   * streams in the next turn of the event loop, STARTS_PER_TURN at a time (why:
   * docs/decisions/0058-apns-pacing.md).
   */
  private release(): void {
    this.active -= 1;
    if (this.waiting.size > 0) this.schedulePump();
    if (this.active === 0) this.keepAlive();
  }

  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      for (let budget = STARTS_PER_TURN; budget > 0 && this.waiting.size > 0 && this.canStart(); budget--) {
        const { request, authorization, resolve } = this.waiting.shift()!;
        this.waitingByKey.delete(request.key);
        this.take();
        resolve(this.sendOnTaken(request, authorization));
      }
      if (this.waiting.size > 0 && this.canStart()) this.schedulePump();
      else if (this.waiting.size > 0 && this.backingOff()) this.wakeAtReconnect();
    });
  }

  /** Sends on a stream already taken; the stream is given back once the answer is known. */
  private sendOnTaken(request: R, authorization: string): Promise<PushAnswer> {
    if (this.closed) {
      this.release();
      return Promise.resolve(TRANSPORT_CLOSED);
    }
    const { format } = this.options;
    this.streaming.set(request.key, undefined);
    return this.send(format.headers(request, authorization), format.body(request), request.key);
  }

  /** A connection holds the process only while it has work. */
  private keepAlive(): void {
    if (this.session === null || this.session.destroyed) return;
    if (this.active > 0) this.session.ref();
    else this.session.unref();
  }

  private sessionNow(): ClientHttp2Session {
    const current = this.session;
    if (current !== null && !current.closed && !current.destroyed) return current;
    if (this.connectedOnce) this.options.onReconnect();
    this.connectedOnce = true;
    const session = connect(this.options.origin, this.options.ca === undefined ? {} : { ca: this.options.ca });
    let ended = false;
    const forget = () => {
      if (this.session === session) this.session = null;
      if (ended) return;
      ended = true;
      this.lost(session);
    };
    // A lost connection is replaced by the next request (after a wait when it never
    // answered); its streams fail on their own.
    session.on('error', forget);
    session.on('goaway', forget);
    session.on('close', forget);
    // Flow control: the remote settings may lower the stream limit; waiting requests
    // are released by `release`, which re-reads it.
    session.on('remoteSettings', () => {
      if (this.waiting.size > 0 && this.active < this.limit()) this.schedulePump();
    });
    this.session = session;
    return session;
  }

  private send(headers: OutgoingHttpHeaders, body: string, key: string): Promise<PushAnswer> {
    const { clock } = this.options;
    return new Promise((resolve) => {
      let settled = false;
      let deadline: Deadline | undefined;
      const settle = (answer: PushAnswer) => {
        if (settled) return;
        settled = true;
        if (deadline !== undefined) this.deadlines.remove(deadline);
        // Before the stream is given back, so that the request held for it may take it.
        this.streamDone(key);
        this.release();
        resolve(answer);
      };
      let session: ClientHttp2Session;
      let stream: ClientHttp2Stream;
      try {
        session = this.sessionNow();
        stream = session.request(headers);
      } catch (error) {
        this.session = null;
        settle({ kind: 'network', error: String(error) });
        return;
      }
      const startedAt = clock.now();
      deadline = this.deadlines.add(() => {
        deadline = undefined;
        settle({ kind: 'timeout' });
        stream.close(constants.NGHTTP2_CANCEL);
        // Nothing answered on this connection for a whole timeout: it is dead, not slow.
        if (this.lastAnswerAt < startedAt && this.session === session) {
          this.session = null;
          session.destroy();
        }
      });
      let status = 0;
      let retryAfter: string | null = null;
      // The answer body of a refusal: a small JSON object, its reason. A success's (none for
      // APNs, FCM's message name) is never read: it is let flow by and not kept.
      let chunks: Buffer[] | null = null;
      let size = 0;
      stream.on('response', (responseHeaders) => {
        status = Number(responseHeaders[':status']);
        const header = responseHeaders['retry-after'];
        retryAfter = typeof header === 'string' ? header : null;
        if (status >= 200 && status < 300) {
          stream.resume();
          return;
        }
        const kept: Buffer[] = [];
        chunks = kept;
        stream.on('data', (chunk: Buffer) => {
          // An answer body is a small JSON object; only its first bytes are kept.
          if (size < MAX_ANSWER_BYTES) kept.push(chunk);
          size += chunk.length;
        });
      });
      const answered = () => {
        if (settled) return;
        this.lastAnswerAt = clock.now();
        this.answeredOn.add(session);
        // A success needs no reason: its body (FCM's message name) is not read.
        const reason =
          status >= 200 && status < 300
            ? null
            : this.options.format.reason(status, chunks === null || size === 0 ? '' : Buffer.concat(chunks).toString('utf8'));
        settle({ kind: 'answer', status, reason, retryAfter });
      };
      stream.on('end', () => {
        if (status !== 0) answered();
      });
      stream.on('error', (error) => settle({ kind: 'network', error: error.message }));
      stream.on('close', () => {
        if (status !== 0) answered();
        else settle({ kind: 'network', error: `stream closed without an answer (code ${stream.rstCode ?? 'none'})` });
      });
      stream.end(body);
    });
  }
}

/** A newer request takes the place of `older`, waiting with the same key: `older` answers WITHDRAWN, never sent. */
function takePlace<R extends PushRequest>(older: StreamWait<R>, request: R, authorization: string, resolve: StreamWait<R>['resolve']): void {
  const withdrawn = older.resolve;
  older.request = request;
  older.authorization = authorization;
  older.resolve = resolve;
  withdrawn(WITHDRAWN);
}

/** A request waiting for a stream (mutable: a newer request with the same key takes its place). */
interface StreamWait<R extends PushRequest> {
  request: R;
  authorization: string;
  resolve: (answer: PushAnswer | Promise<PushAnswer>) => void;
}
