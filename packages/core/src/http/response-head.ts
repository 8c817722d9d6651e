import type { CoreResult } from './types.js';

/** The status line and headers of a result, as an adapter writes them. */
export interface ResponseHead {
  status: number;
  /** A new object each time: the adapter may add its framing headers (`content-length`, ...). */
  headers: Record<string, string>;
}

/** A `json` result's body is this media type. */
const JSON_CONTENT_TYPE = 'application/json';

/** An event stream's status. */
const SSE_STATUS = 200;

/** An event stream's headers (docs/contract/events-and-webhooks.md#sse-response-headers): never cached, transformed, buffered or compressed. */
const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/**
 * Status and headers for a result: the core decides both, for every kind, so an adapter
 * never writes a status or a content type of its own. A `json` result's body is
 * `JSON.stringify(result.body)`; an `empty` one has none; an event stream's is what its
 * `run` writes to the sink.
 */
export function responseHead(result: CoreResult): ResponseHead {
  switch (result.kind) {
    case 'json':
      return {
        status: result.status,
        headers: result.headers === undefined ? { 'content-type': JSON_CONTENT_TYPE } : { ...result.headers, 'content-type': JSON_CONTENT_TYPE },
      };
    case 'empty':
      return { status: result.status, headers: { ...result.headers } };
    case 'sse':
      return { status: SSE_STATUS, headers: { ...SSE_HEADERS, ...result.headers } };
  }
}

/**
 * The answer to a `HEAD`: the status and headers the `GET` would have had, and no body
 * (RFC 9110 §9.3.2). A JSON answer keeps its `content-length`; an event stream is never run
 * (its route's `head` took nothing that it would have to release).
 */
export function headOnly(result: CoreResult): CoreResult {
  if (result.kind === 'empty') return result;
  const { status, headers } = responseHead(result);
  if (result.kind === 'json') headers['content-length'] = String(Buffer.byteLength(JSON.stringify(result.body) ?? ''));
  return { kind: 'empty', status, headers };
}
