/**
 * `@tilecast/adapter-fetch`: Tilecast as a Fetch-standard handler, `(request) => Response`,
 * the shape Hono, Next.js route handlers, Remix, Bun and Deno mount directly. It only
 * translates: every status and rule lives in `@tilecast/core`.
 */
import {
  createMountTable,
  errorToResult,
  internalErrorResult,
  responseHead,
  splitTarget,
  type CoreRequest,
  type CoreResult,
  type RequestBody,
  type RequestHandler,
  type SseSink,
} from '@tilecast/core/adapter';

/** Anything with Tilecast's `handle`: a `Tilecast` instance, its `device` handler, a test double. */
export type TilecastHandler = RequestHandler;

export interface FetchHandlerOptions<R = Response> {
  /** Serve Tilecast under this path prefix, e.g. `/api`. Default: the root. */
  basePath?: string;
  /**
   * The answer for a request no mount serves (outside every mount, or a path Tilecast does
   * not own). Default: Tilecast's JSON `404`. Return
   * `undefined` to hand the request back to the host (Hono's `mount()` then calls `next()`).
   */
  notFound?: (request: Request) => R | Promise<R>;
}

/**
 * A Fetch handler serving `target`: one handler, or several by path prefix (the longest
 * that matches wins), e.g. `createFetchHandler({ '/': tilecast, '/device': tilecast.device })`.
 */
export function createFetchHandler<R = Response>(
  target: TilecastHandler | Record<string, TilecastHandler>,
  options: FetchHandlerOptions<R> = {},
): (request: Request) => Promise<Response | R> {
  const find = createMountTable(isHandler(target) ? { '/': target } : target, options.basePath);
  const notFound = options.notFound ?? (() => toResponse(errorToResult({ kind: 'route_not_found' }), undefined));
  // No async function: one promise from the core's answer to the response, not three.
  return (request) => {
    const found = find(targetOf(request.url).path);
    if (found === undefined) return new Promise((resolve) => resolve(notFound(request))); // not Tilecast's: the host's
    return found.handler.handle(new FetchCoreRequest(request, found.path)).then((result) => respond(result, request), internalError);
  };
}

function respond(result: CoreResult, request: Request): Response {
  try {
    return toResponse(result, request);
  } catch {
    return internalError(); // a body that does not serialize
  }
}

const internalError = (): Response => toResponse(internalErrorResult(), undefined);

/** Path and query of a request's absolute URL (already parsed and normalised by whoever made the `Request`). */
function targetOf(url: string): { path: string; query: string } {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  const fragment = url.indexOf('#');
  return start === -1 ? { path: '/', query: '' } : splitTarget(fragment === -1 ? url.slice(start) : url.slice(start, fragment));
}

/**
 * The request as the core reads it, and its raw body. Lazy where a server may make things
 * only when asked (`@hono/node-server` does): `signal` (an AbortController), the query's
 * `URLSearchParams`, each header (see `headerTraps`); most requests never ask for the first two.
 */
class FetchCoreRequest implements CoreRequest {
  readonly method: string;
  readonly headers: Record<string, string | undefined>;
  readonly body: RequestBody = this; // its own raw body: `kind` and `read`
  readonly kind = 'raw';
  /** Header names read so far, each followed by its value (a short list beats a map). */
  readonly #seen: (string | undefined)[] = [];

  constructor(
    readonly request: Request,
    readonly path: string,
  ) {
    this.method = request.method;
    this.headers = new Proxy(this, headerTraps) as unknown as Record<string, string | undefined>;
  }

  get query(): URLSearchParams {
    return new URLSearchParams(targetOf(this.request.url).query); // read once, by `GET /events` alone
  }

  get signal(): AbortSignal {
    return this.request.signal;
  }

  header(name: string | symbol): string | undefined {
    if (typeof name !== 'string') return undefined;
    const seen = this.#seen;
    for (let i = 0; i < seen.length; i += 2) if (seen[i] === name) return seen[i + 1];
    const value = this.request.headers.get(name) ?? undefined;
    seen.push(name, value);
    return value;
  }

  /** The whole body, or `'too_large'` once more than `limit` bytes are announced or read (the rest is left unread). */
  read(limit: number): Promise<Uint8Array | 'too_large' | 'aborted'> {
    const announced = this.header('content-length');
    if (Number(announced) > limit) return Promise.resolve('too_large');
    // A length announced within the limit is the body's (HTTP framing): read whole, which
    // servers do without a stream (`@hono/node-server` makes no web stream then). A Buffer view
    // (no copy): the core scans the bytes, natively in a Buffer, slowly in a plain Uint8Array.
    if (announced !== undefined) return this.request.arrayBuffer().then((bytes) => Buffer.from(bytes), aborted);
    return this.request.body === null ? Promise.resolve(Buffer.alloc(0)) : readChunks(this.request.body.getReader(), limit).catch(aborted);
  }
}

const aborted = () => 'aborted' as const; // the client went away mid-body

/**
 * The headers as the core reads them, by lower-case name, each looked up when first read:
 * copying them all would cost a server with lazy headers (`@hono/node-server`) a full
 * `Headers`. Repeated headers come joined with `, ` (the Fetch `Headers` merges them): two
 * `Authorization` headers are one malformed value, which the core refuses like two.
 */
const headerTraps: ProxyHandler<FetchCoreRequest> = {
  get: (request, name) => request.header(name),
  has: (request, name) => request.header(name) !== undefined,
  ownKeys: (request) => [...request.request.headers.keys()],
  getOwnPropertyDescriptor: (request, name) => property(request.header(name)),
};

const property = (value: string | undefined) => (value === undefined ? undefined : { value, enumerable: true, configurable: true });

/** A body of unannounced length, chunk by chunk: `'too_large'` as soon as it passes `limit`. */
async function readChunks(reader: ReadableStreamDefaultReader<Uint8Array>, limit: number): Promise<Uint8Array | 'too_large'> {
  const chunks: Uint8Array[] = [];
  for (let read = await reader.read(), size = 0; !read.done; read = await reader.read()) {
    if ((size += read.value.byteLength) > limit) return 'too_large';
    chunks.push(read.value);
  }
  return Buffer.concat(chunks);
}

/**
 * A core result as a Fetch `Response`: for a host whose server refuses a request itself and
 * lets the app give the answer, e.g. `@hono/node-server`'s `errorHandler`:
 * `() => toFetchResponse(errorToResult({ kind: 'bad_request' }))`.
 */
export function toFetchResponse(result: CoreResult): Response {
  return toResponse(result, undefined);
}

function toResponse(result: CoreResult, request: Request | undefined): Response {
  const { status, headers } = responseHead(result);
  if (result.kind !== 'sse') return new Response(result.kind === 'json' ? JSON.stringify(result.body) : null, { status, headers });
  const signal = request?.signal;
  let sink: FetchSseSink | undefined;
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const started = new FetchSseSink(controller, signal);
        sink = started;
        const end = () => started.end();
        void result.run(started).then(end, end);
      },
      cancel: () => sink?.end(), // the client went away (the server cancelled the body)
    },
    // No queue allowed before a read: everything queued counts as buffered.
    { highWaterMark: 0, size: (chunk) => chunk.byteLength },
  );
  return new Response(stream, { status, headers });
}

const encoder = new TextEncoder();
const written = Promise.resolve();

/** The core's view of the event stream: what it writes goes into the body's queue. */
class FetchSseSink implements SseSink {
  readonly #closed = new AbortController();
  readonly #onAbort = () => this.end();

  constructor(
    private readonly controller: ReadableStreamDefaultController<Uint8Array>,
    private readonly request: AbortSignal | undefined,
  ) {
    if (request?.aborted) this.end();
    else request?.addEventListener('abort', this.#onAbort, { once: true });
  }

  /** Bytes queued in the body that the server has not taken yet (the queue's size past its zero mark). */
  get bufferedBytes(): number {
    return this.signal.aborted ? 0 : Math.max(0, -(this.controller.desiredSize ?? 0));
  }

  get signal(): AbortSignal {
    return this.#closed.signal;
  }

  write(text: string): Promise<void> {
    // No waiting: the core watches `bufferedBytes` and ends a stream whose client stopped reading.
    if (!this.signal.aborted) this.controller.enqueue(encoder.encode(text));
    return written;
  }

  end(): void {
    if (this.signal.aborted) return;
    this.#closed.abort();
    this.request?.removeEventListener('abort', this.#onAbort);
    try {
      this.controller.close();
    } catch {
      // Already cancelled by the server: nothing left to close.
    }
  }
}

function isHandler(target: TilecastHandler | Record<string, TilecastHandler>): target is TilecastHandler {
  return typeof (target as TilecastHandler).handle === 'function';
}
