/** Writing the core's answer to a `node:http` response. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { internalErrorResult, type CoreResult, type RequestHandler } from '@tilecast/core/adapter';
import { toCoreRequest, type ToCoreRequestOptions } from './request.js';
import { runEventStream } from './sse.js';

/** Anything with Tilecast's `handle` (the composition root, or a test double). */
export type TilecastHandler = RequestHandler;

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
  const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) };
  // Most answers have no headers of their own: no object copied for them.
  res.writeHead(result.status, result.headers === undefined ? headers : { ...result.headers, ...headers });
  res.end(payload);
}

/**
 * Serves one request with Tilecast: translate, handle, write. Never rejects. A promise
 * chain rather than an async function, which would stay suspended (frame and registers)
 * for the whole life of an event stream.
 */
export function handleNodeRequest(tilecast: TilecastHandler, req: IncomingMessage, res: ServerResponse, options: ToCoreRequestOptions = {}): Promise<void> {
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
  if (!res.headersSent) void writeCoreResult(res, internalErrorResult());
  else if (!res.writableEnded) res.destroy();
}
