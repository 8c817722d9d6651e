/** What Node answers by itself, given the service's answers (docs/contract/limits-and-errors.md#node-refusals-json). */
import { STATUS_CODES, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { errorToResult, responseHead, type CoreResult, type ServiceError } from '@tilecast/core/adapter';
import { writeCoreResult } from '../response.js';

/**
 * Gives a `node:http` server the service's answers where Node would answer alone
 * (docs/contract/limits-and-errors.md#node-refusals-json, docs/contract/limits-and-errors.md#continue-after-checks). The adapters install it on the servers they create; a host
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

/** Node's `checkExpectation` handler: an `Expect` other than `100-continue` is a JSON `417` (docs/contract/limits-and-errors.md#error-expectation-failed). */
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

/**
 * The service's refusal for an error of Node's HTTP parser, with Node's own choice of status
 * (docs/contract/limits-and-errors.md#error-bad-request, docs/contract/limits-and-errors.md#error-header-fields-too-large).
 */
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
  const { status, headers } = responseHead(result);
  const payload = result.kind === 'json' ? JSON.stringify(result.body) : '';
  headers['content-length'] = String(Buffer.byteLength(payload));
  headers.connection = 'close';
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
