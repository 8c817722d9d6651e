/**
 * `node:http` plumbing shared by every Node adapter: turning an IncomingMessage
 * into a `CoreRequest` and writing a `CoreResult` to a ServerResponse. Adapters
 * only call these, so no HTTP rule is written twice.
 */
import { STATUS_CODES, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { Socket } from 'node:net';
import type { ServiceError } from '../errors.js';
import { errorToResult } from '../http/error-response.js';
import type { CoreRequest, CoreResult, HeaderValue, RequestBody, SseSink } from '../http/types.js';

/** Anything with Tilecast's `handle` (the composition root, or a test double). */
export interface TilecastHandler {
  handle(request: CoreRequest): Promise<CoreResult>;
}

export interface ToCoreRequestOptions {
  /** Path of the request relative to where Tilecast is mounted, with the query. Default `req.url`. */
  url?: string;
  /** A body the host framework already read (e.g. express.json()). `undefined` means unread. */
  parsedBody?: unknown;
  /** The host framework's body parser refused the body; the core reports it in its turn. */
  bodyRefusal?: ServiceError;
}

export function toCoreRequest(req: IncomingMessage, res: ServerResponse, options: ToCoreRequestOptions = {}): CoreRequest {
  const { path, query } = splitUrl(options.url ?? req.url ?? '/');
  const body: RequestBody =
    options.bodyRefusal !== undefined ? { kind: 'refused', error: options.bodyRefusal } : requestBody(req, options.parsedBody);
  // As received: methods are case-sensitive (RFC 9110 §9.1), and Node's parser only
  // produces the registered ones, in upper case.
  return new NodeCoreRequest(req.method ?? 'GET', path, query, headersOf(req), body, res);
}

/**
 * The request's headers as the core reads them. Node keeps only the first of repeated
 * `Authorization` headers; the core must see them all (two are a `401`), so they are
 * counted in `rawHeaders`, only when there is one at all: a few length comparisons, and
 * no new object unless it is repeated.
 */
function headersOf(req: IncomingMessage): Record<string, HeaderValue> {
  const headers = req.headers as Record<string, HeaderValue>;
  if (headers.authorization === undefined) return headers;
  const raw = req.rawHeaders;
  let first = -1;
  let values: string[] | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length !== 13 || name.toLowerCase() !== 'authorization') continue;
    if (first === -1) first = i;
    else (values ??= [raw[first + 1]!]).push(raw[i + 1]!);
  }
  return values === undefined ? headers : { ...headers, authorization: values };
}

/**
 * A class rather than an object literal: its lazy getters live on the prototype (an
 * accessor in a literal costs most of a microsecond per request in V8).
 */
class NodeCoreRequest implements CoreRequest {
  #signal: AbortSignal | undefined;
  #query: URLSearchParams | undefined;
  constructor(
    readonly method: string,
    readonly path: string,
    private readonly queryText: string,
    readonly headers: Record<string, HeaderValue>,
    readonly body: RequestBody,
    private readonly res: ServerResponse,
  ) {}

  /** Parsed on first use only: only `GET /events` reads its query. */
  get query(): URLSearchParams {
    return (this.#query ??= new URLSearchParams(this.queryText));
  }

  /** Made on first use only: most requests never look at it. */
  get signal(): AbortSignal {
    return (this.#signal ??= closeSignal(this.res));
  }

  onClose(fn: () => void): void {
    whenClosed(this.res, fn);
  }
}

/**
 * Calls `fn` once the response is closed (at once if it is): 'close' comes once, so a
 * plain listener, without `once`'s wrapper, and no AbortSignal.
 */
function whenClosed(res: ServerResponse, fn: () => void): void {
  if (res.closed) fn();
  else res.on('close', fn);
}

/** Path and query of an origin-form (or absolute-form) request target. */
export function splitUrl(url: string): { path: string; query: string } {
  let target = url;
  if (!target.startsWith('/')) {
    try {
      const parsed = new URL(target);
      target = parsed.pathname + parsed.search;
    } catch {
      target = '/';
    }
  }
  const mark = target.indexOf('?');
  return mark === -1 ? { path: target, query: '' } : { path: target.slice(0, mark), query: target.slice(mark + 1) };
}

function requestBody(req: IncomingMessage, parsed: unknown): RequestBody {
  if (parsed instanceof Uint8Array) return { kind: 'stream', read: async (limit) => (parsed.byteLength > limit ? 'too_large' : parsed) };
  if (parsed !== undefined) return { kind: 'parsed', value: parsed };
  return { kind: 'stream', read: (limit) => readLimited(req, limit) };
}

/**
 * Reads the whole body, or stops at `limit + 1` bytes without buffering the rest. A client
 * that goes away first (before or during the read) makes it `'aborted'`.
 */
export function readLimited(req: IncomingMessage, limit: number): Promise<Uint8Array | 'too_large' | 'aborted'> {
  // Gone before the read began: its 'close' has passed, so no listener would ever hear it.
  if (req.destroyed && !req.complete) return Promise.resolve('aborted');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        cleanup();
        req.pause();
        resolve('too_large');
        return;
      }
      chunks.push(chunk);
    };
    // Removed at the end too. Left attached, they kept the finished request alive: under
    // the S2 press load about 2 KB per press (the request, its headers, its body) lived
    // through young-generation collections and was promoted (a sampling heap profile).
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    // Node's request stream only fails when its connection does (the client reset it or
    // left mid-body): that is the client's abort, not a failure of the service.
    const onError = () => {
      cleanup();
      resolve('aborted');
    };
    const onClose = () => {
      if (req.complete) return;
      cleanup();
      resolve('aborted');
    };
    // 'close' comes after 'end' for a complete request (and is then ignored), so a
    // settled promise is never settled again.
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

const controllers = new WeakMap<ServerResponse, AbortController>();

/**
 * One controller per response, aborted when it closes: the request's `signal` and an
 * event stream's sink share it (an AbortController is not small, and streams are many).
 */
function closeController(res: ServerResponse): AbortController {
  let controller = controllers.get(res);
  if (controller === undefined) {
    const created = new AbortController();
    controllers.set(res, created);
    whenClosed(res, () => created.abort());
    controller = created;
  }
  return controller;
}

function closeSignal(res: ServerResponse): AbortSignal {
  return closeController(res).signal;
}

/**
 * Writes a core result; for an event stream, runs it until it ends or the client leaves
 * (then, and only then, the answer is a promise: a plain answer is written at once).
 */
export function writeCoreResult(res: ServerResponse, result: CoreResult): Promise<void> | undefined {
  if (result.kind === 'sse') return runEventStream(res, result);
  if (result.kind === 'empty') {
    res.writeHead(result.status, result.headers);
    res.end();
    return;
  }
  const payload = JSON.stringify(result.body);
  res.writeHead(result.status, {
    ...result.headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
  });
  res.end(payload);
}

/**
 * Not an async function, like `handleNodeRequest`: a stream lives for minutes, and a
 * suspended async frame (with its registers) per open stream costs memory that every
 * major GC marks again.
 */
function runEventStream(res: ServerResponse, result: Extract<CoreResult, { kind: 'sse' }>): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
    ...result.headers,
  });
  res.flushHeaders();
  const sink = createSseSink(res);
  // Ended whatever way the run ends (`finally` would keep two more closures per stream).
  // A run that failed leaves an ended response: nothing more to answer.
  const end = () => sink.end();
  return result.run(sink).then(end, end);
}

function createSseSink(res: ServerResponse): SseSink {
  return new NodeSseSink(res);
}

/** What every SSE write answers: one settled promise, not a new one per write. */
const written = Promise.resolve();

/**
 * A class, not a literal with a getter: one per open stream, so its size counts. The core
 * watches it through `onClose`; its `signal` (an AbortController, most of a kilobyte with
 * its listener) is made only if something reads it.
 */
class NodeSseSink implements SseSink {
  constructor(private readonly res: ServerResponse) {}

  get bufferedBytes(): number {
    return this.res.writableLength;
  }

  get signal(): AbortSignal {
    const controller = closeController(this.res);
    if (this.res.writableEnded) controller.abort(); // ended by the server: aborted too
    return controller.signal;
  }

  onClose(fn: () => void): void {
    whenClosed(this.res, fn);
  }

  write(text: string): Promise<void> {
    // No waiting for 'drain': the core watches `bufferedBytes` and ends a stream whose
    // client stopped reading (reference-deployment §9), instead of stalling its loop.
    if (!this.res.closed && !this.res.writableEnded) this.res.write(text);
    return written;
  }

  end(): void {
    if (!this.res.writableEnded) this.res.end();
    // Ended by the server: the signal, if made, says so now (as the contract has it), not
    // only once the connection closes.
    controllers.get(this.res)?.abort();
  }
}

/**
 * Serves one request with Tilecast: translate, handle, write. Never rejects. A promise
 * chain rather than an async function, which would stay suspended (frame and registers)
 * for the whole life of an event stream.
 */
export function handleNodeRequest(
  tilecast: TilecastHandler,
  req: IncomingMessage,
  res: ServerResponse,
  options: ToCoreRequestOptions = {},
): Promise<void> {
  // One `then` with both handlers, which are let go once it ran: an event stream (whose
  // runner never rejects) keeps no failure handler for its whole life.
  const write = (result: CoreResult) => {
    // A client that left gets nothing written (an event stream still runs, to release
    // what it holds, and ends at once).
    if (result.kind !== 'sse' && res.destroyed) return;
    try {
      return writeCoreResult(res, result);
    } catch {
      return answerFailure(res);
    }
  };
  try {
    return tilecast.handle(toCoreRequest(req, res, options)).then(write, () => answerFailure(res));
  } catch {
    answerFailure(res);
    return Promise.resolve();
  }
}

/** handle() never rejects; this covers a client that left mid-write. */
function answerFailure(res: ServerResponse): void {
  if (res.destroyed) return;
  if (!res.headersSent) {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end('{"detail":"Internal Server Error"}');
  } else if (!res.writableEnded) {
    res.destroy();
  }
}

// ── what Node answers by itself ─────────────────────────────────────────────────────────

/**
 * Gives a `node:http` server the service's answers where Node would answer alone
 * (reference-deployment §9). The adapters install it on the servers they create; a host
 * that creates its own server calls it once:
 * - `clientError` (oversized headers, a malformed request line, ...): a JSON error body
 *   from the core's error table, instead of Node's empty 431 / 400;
 * - `connect` (a `CONNECT` request): a JSON `405`, instead of a dropped connection;
 * - with `listener`, `checkContinue`: a request with `Expect: 100-continue` is served by
 *   `listener`, and `100 Continue` is sent only when something starts reading its body.
 *   The core reads a body only after authentication and the `Content-Length` check, so an
 *   unauthenticated or oversized request gets its refusal and never a `100`. Leave it out
 *   when that listener does not read bodies through the core (Node then sends `100` at
 *   once, as by default).
 */
export function installServerHandlers(server: Server, listener?: RequestListener): void {
  server.on('clientError', answerClientError);
  server.on('connect', answerConnect);
  server.on('checkExpectation', answerExpectation);
  if (listener !== undefined) {
    server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
      continueOnRead(req, res);
      listener(req, res);
    });
  }
}

/** Node's `clientError` handler: a parser refusal answered with the core's JSON error. */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  // Something was already written on this connection (an earlier answer, or one under
  // way): a second head could corrupt it, so just close.
  if (error.code === 'ECONNRESET' || !socket.writable || bytesWritten(socket) > 0) {
    socket.destroy();
    return;
  }
  writeRaw(socket, errorToResult(clientErrorKind(error.code)));
}

/** Bytes this connection has sent so far (a `net.Socket`'s public counter; 0 for other streams). */
function bytesWritten(socket: Duplex): number {
  return socket instanceof Socket ? socket.bytesWritten : 0;
}

/** Node's `checkExpectation` handler: an `Expect` other than `100-continue` is a JSON `417`. */
export function answerExpectation(_req: IncomingMessage, res: ServerResponse): void {
  void writeCoreResult(res, errorToResult({ kind: 'expectation_failed' }));
}

/** Node's `connect` handler: this server is no proxy, so a JSON `405` and the connection closes. */
export function answerConnect(_req: IncomingMessage, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  writeRaw(socket, errorToResult({ kind: 'method_not_allowed', allow: [] }));
}

/** The service's refusal for an error of Node's HTTP parser (Node's own choice of status). */
function clientErrorKind(code: string | undefined): ServiceError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { kind: 'request_header_fields_too_large' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { kind: 'payload_too_large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { kind: 'request_timeout' };
    default:
      return { kind: 'bad_request' };
  }
}

/** Writes a JSON result straight to a socket that no ServerResponse owns, then closes it. */
function writeRaw(socket: Duplex, result: CoreResult): void {
  const status = 'status' in result ? result.status : 400;
  const payload = result.kind === 'json' ? JSON.stringify(result.body) : '';
  const headers: Record<string, string | number> = {
    ...result.headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
    connection: 'close',
  };
  let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  // Ended, then destroyed once flushed: a peer that keeps sending cannot hold the socket.
  socket.end(`${head}\r\n${payload}`, () => socket.destroy());
}

/** Sends `100 Continue` when the first reader of the body attaches, unless an answer came first. */
function continueOnRead(req: IncomingMessage, res: ServerResponse): void {
  const onListener = (event: string | symbol) => {
    if (event !== 'data' && event !== 'readable') return;
    req.off('newListener', onListener);
    if (!res.headersSent && !res.destroyed) res.writeContinue();
  };
  req.on('newListener', onListener);
}
