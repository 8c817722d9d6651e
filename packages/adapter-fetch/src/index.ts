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
  type CoreRequest,
  type CoreResult,
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
  return async (request) => {
    const url = new URL(request.url);
    const found = find(url.pathname);
    if (found === undefined) return notFound(request); // not Tilecast's: the host's
    const result = await found.handler.handle(toCoreRequest(request, found.path, url.searchParams)).catch(internalErrorResult);
    try {
      return toResponse(result, request.signal);
    } catch {
      return toResponse(internalErrorResult(), undefined); // a body that does not serialize
    }
  };
}

function toCoreRequest(request: Request, path: string, query: URLSearchParams): CoreRequest {
  // Names come lower-case. Repeated headers arrive joined with `, ` (the Fetch `Headers`
  // merges them): two `Authorization` headers become one malformed value, which the core
  // refuses like two.
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const body = { kind: 'stream' as const, read: (limit: number) => readLimited(request, limit) };
  return { method: request.method, path, query, headers, body, signal: request.signal };
}

/** The whole body; `'too_large'` once more than `limit` bytes are announced or read (the rest is left unread). */
async function readLimited(request: Request, limit: number): Promise<Uint8Array | 'too_large' | 'aborted'> {
  if (Number(request.headers.get('content-length')) > limit) return 'too_large';
  if (request.signal.aborted) return 'aborted';
  if (request.body === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    const reader = request.body.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      size += read.value.byteLength;
      if (size > limit) return 'too_large';
      chunks.push(read.value);
    }
  } catch {
    return 'aborted'; // the client went away mid-body
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/**
 * A core result as a Fetch `Response`: for a host whose server refuses a request itself and
 * lets the app give the answer, e.g. `@hono/node-server`'s `errorHandler`:
 * `() => toFetchResponse(errorToResult({ kind: 'bad_request' }))`.
 */
export function toFetchResponse(result: CoreResult): Response {
  return toResponse(result, undefined);
}

function toResponse(result: CoreResult, signal: AbortSignal | undefined): Response {
  const { status, headers } = responseHead(result);
  if (result.kind !== 'sse') return new Response(result.kind === 'json' ? JSON.stringify(result.body) : null, { status, headers });
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
