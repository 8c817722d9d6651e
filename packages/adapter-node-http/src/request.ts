/** Translation of a `node:http` request into the core's `CoreRequest`. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { splitTarget, type CoreRequest, type HeaderValue, type RequestBody, type ServiceError } from '@tilecast/core/adapter';
import { readLimited } from './io/body.js';
import { closeSignal, whenClosed } from './io/close.js';

export interface ToCoreRequestOptions {
  /** Path of the request relative to where Tilecast is mounted, with the query. Default `req.url`. */
  url?: string;
  /** The same, already split (as `splitTarget` does): a router that split it once passes it on. */
  target?: { path: string; query: string };
  /** A body the host framework already read (e.g. express.json()). `undefined` means unread. */
  parsedBody?: unknown;
  /** The host framework's body parser refused the body; the core reports it in its turn. */
  bodyRefusal?: ServiceError;
}

export function toCoreRequest(req: IncomingMessage, res: ServerResponse, options: ToCoreRequestOptions = {}): CoreRequest {
  const { path, query } = options.target ?? splitTarget(options.url ?? req.url ?? '/');
  const body: RequestBody = options.bodyRefusal !== undefined ? { kind: 'refused', error: options.bodyRefusal } : requestBody(req, options.parsedBody);
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

/** A class rather than an object literal: its lazy getters live once on the prototype, not in every request. */
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

function requestBody(req: IncomingMessage, parsed: unknown): RequestBody {
  if (parsed instanceof Uint8Array) return { kind: 'raw', read: async (limit) => (parsed.byteLength > limit ? 'too_large' : parsed) };
  if (parsed !== undefined) return { kind: 'parsed', value: parsed };
  return { kind: 'raw', read: (limit) => readLimited(req, limit) };
}
