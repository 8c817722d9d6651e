/**
 * A raw HTTP/1.1 client over a TCP socket on loopback, for the fuzz test: it sends the
 * exact bytes it is given (duplicate headers, NUL and non-ASCII bytes in header values,
 * undecodable percent-escapes in the target), which `fetch` and `http.request` refuse
 * or normalise. Every request carries `Connection: close`, so one response per socket.
 *
 * An event stream (`text/event-stream`) is read until its first body bytes, then the
 * socket is destroyed. Every wait is bounded by `timeoutMs`.
 */
import { connect } from 'node:net';

export interface RawRequest {
  method: string;
  /** Request target exactly as sent (origin form, already percent-encoded as wanted). */
  target: string;
  /** Header lines in order; a value is sent as its bytes (latin1 for strings). */
  headers: Array<[string, string | Uint8Array]>;
  body?: Uint8Array;
  /** Send the body with `Transfer-Encoding: chunked` instead of `Content-Length`. */
  chunked?: boolean;
}

export interface RawReply {
  status: number;
  /** Header names in lower case; repeated headers keep every value. */
  headers: Record<string, string[]>;
  body: Buffer;
  /** The response was an event stream, read until its first bytes and then aborted. */
  stream: boolean;
  /** Interim (1xx) responses received before the final one. */
  interim: number[];
}

export function encodeRequest(request: RawRequest, host: string): Buffer {
  const parts: Buffer[] = [Buffer.from(`${request.method} ${request.target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n`, 'latin1')];
  for (const [name, value] of request.headers) {
    parts.push(Buffer.from(`${name}: `, 'latin1'), typeof value === 'string' ? Buffer.from(value, 'latin1') : Buffer.from(value), Buffer.from('\r\n'));
  }
  const body = request.body;
  if (body !== undefined) {
    if (request.chunked) {
      parts.push(Buffer.from('Transfer-Encoding: chunked\r\n\r\n'));
      // Two chunks when there is anything to split: the server must join them.
      const half = Math.floor(body.byteLength / 2);
      for (const chunk of [body.subarray(0, half), body.subarray(half)]) {
        if (chunk.byteLength > 0) parts.push(Buffer.from(`${chunk.byteLength.toString(16)}\r\n`), Buffer.from(chunk), Buffer.from('\r\n'));
      }
      parts.push(Buffer.from('0\r\n\r\n'));
    } else {
      parts.push(Buffer.from(`Content-Length: ${body.byteLength}\r\n\r\n`), Buffer.from(body));
    }
  } else {
    parts.push(Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}

/** Sends `request` to 127.0.0.1:`port` and reads one response (bounded by `timeoutMs`). */
export function sendRaw(port: number, request: RawRequest, timeoutMs: number): Promise<RawReply> {
  const bytes = encodeRequest(request, `127.0.0.1:${port}`);
  const noBody = request.method === 'HEAD';
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (outcome: { reply: RawReply } | { error: Error }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if ('reply' in outcome) resolve(outcome.reply);
      else reject(outcome.error);
    };
    const timer = setTimeout(
      () =>
        finish({
          error: new Error(
            `no complete answer within ${timeoutMs} ms (received ${received.byteLength} bytes: ${JSON.stringify(received.subarray(0, 200).toString('latin1'))})`,
          ),
        }),
      timeoutMs,
    );
    const tryParse = (ended: boolean) => {
      const parsed = parseResponse(received, noBody, ended);
      if (parsed === 'incomplete') {
        if (ended)
          finish({
            error: new Error(
              `connection closed without a complete response (received ${received.byteLength} bytes: ${JSON.stringify(received.subarray(0, 200).toString('latin1'))})`,
            ),
          });
        return;
      }
      finish({ reply: parsed });
    };
    // Written without a FIN: Node's server treats a half-closed socket as an aborted request.
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      tryParse(false);
    });
    socket.on('end', () => tryParse(true));
    // A reset after the server answered early (e.g. 413 before the body was sent) still
    // leaves a complete response to read; otherwise it is the failure.
    socket.on('error', (error) => {
      const parsed = parseResponse(received, noBody, true);
      if (parsed !== 'incomplete') finish({ reply: parsed });
      else finish({ error: new Error(`socket error before a complete response: ${error.message} (received ${received.byteLength} bytes)`) });
    });
    socket.on('close', () => tryParse(true));
  });
}

const HEADER_END = Buffer.from('\r\n\r\n');

function parseResponse(data: Buffer, noBody: boolean, ended: boolean): RawReply | 'incomplete' {
  const interim: number[] = [];
  let offset = 0;
  for (;;) {
    const end = data.indexOf(HEADER_END, offset);
    if (end === -1) return 'incomplete';
    const lines = data.subarray(offset, end).toString('latin1').split('\r\n');
    const statusMatch = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
    if (statusMatch === null) throw new Error(`not an HTTP response: ${JSON.stringify(lines[0])}`);
    const status = Number(statusMatch[1]);
    const headers: Record<string, string[]> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      (headers[name] ??= []).push(line.slice(colon + 1).trim());
    }
    const bodyStart = end + HEADER_END.byteLength;
    if (status >= 100 && status < 200) {
      interim.push(status);
      offset = bodyStart;
      continue;
    }
    const rest = data.subarray(bodyStart);
    const stream = (headers['content-type']?.[0] ?? '').toLowerCase().startsWith('text/event-stream');
    if (noBody || status === 204 || status === 304) return { status, headers, body: Buffer.alloc(0), stream, interim };
    const chunked = (headers['transfer-encoding']?.[0] ?? '').toLowerCase().includes('chunked');
    if (chunked) {
      const decoded = decodeChunked(rest);
      if (stream && decoded.body.byteLength > 0) return { status, headers, body: decoded.body, stream, interim };
      if (!decoded.complete) return 'incomplete';
      return { status, headers, body: decoded.body, stream, interim };
    }
    const length = headers['content-length']?.[0];
    if (length !== undefined) {
      const wanted = Number(length);
      if (rest.byteLength < wanted) return stream && rest.byteLength > 0 ? { status, headers, body: rest, stream, interim } : 'incomplete';
      return { status, headers, body: rest.subarray(0, wanted), stream, interim };
    }
    if (stream && rest.byteLength > 0) return { status, headers, body: rest, stream, interim };
    return ended ? { status, headers, body: rest, stream, interim } : 'incomplete';
  }
}

function decodeChunked(data: Buffer): { body: Buffer; complete: boolean } {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', offset);
    if (lineEnd === -1) return { body: Buffer.concat(parts), complete: false };
    const size = parseInt(data.subarray(offset, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) throw new Error('bad chunk size in response');
    if (size === 0) return { body: Buffer.concat(parts), complete: true };
    const start = lineEnd + 2;
    if (data.byteLength < start + size) {
      parts.push(data.subarray(start));
      return { body: Buffer.concat(parts), complete: false };
    }
    parts.push(data.subarray(start, start + size));
    offset = start + size + 2;
  }
}
