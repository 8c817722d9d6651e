/**
 * One webhook attempt: one HTTP request through the guarded agent, never following a
 * redirect, bounded by a deadline on the injected clock, reading at most 64 KiB of the
 * answer and dropping it (the owner never sees a receiver's body).
 */
import type { IncomingMessage } from 'node:http';
import https, { type Agent } from 'node:https';
import type { Clock } from '../clock.js';
import { singleHeader } from '../http/headers.js';
import { isBlockedAddressError } from './address-guard.js';

/** Each attempt has 2 seconds to receive an answer (docs/contract/events-and-webhooks.md#webhook-attempts). */
export const ATTEMPT_TIMEOUT_MS = 2000;
/** Response bytes read before the rest is dropped (docs/contract/events-and-webhooks.md#webhook-response-body-cap). */
export const RESPONSE_BODY_LIMIT_BYTES = 64 * 1024;

export interface OutgoingRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  /** `null` for `GET`. */
  body: string | null;
}

export type AttemptResult =
  /** The receiver answered with `status` in time. */
  | { kind: 'response'; status: number; retryAfter: string | null }
  | { kind: 'timeout' }
  /** DNS failure, refused or reset connection, TLS failure, no response. */
  | { kind: 'network'; code: string }
  /** The address guard refused the destination. */
  | { kind: 'blocked' };

export interface AttemptOptions {
  agent: Agent;
  clock: Clock;
  /** Aborted when the dispatcher closes. */
  signal: AbortSignal;
}

/**
 * `https.request` directly: for one small POST on a kept-alive connection, a fetch layer's
 * per-request objects cost more than the request. It never follows a redirect and sends no
 * `Accept-Encoding`, so a compressed bomb is never expanded.
 */
export function sendAttempt(request: OutgoingRequest, options: AttemptOptions): Promise<AttemptResult> {
  return new Promise((resolve) => {
    let timedOut = false;
    let settled = false;
    let answer: AttemptResult | undefined;
    const req = https.request(request.url, { method: request.method, headers: request.headers, agent: options.agent });
    const abort = (): void => void req.destroy(new Error('webhook attempt aborted'));
    const timer = options.clock.setTimeout(() => {
      timedOut = true;
      abort();
    }, ATTEMPT_TIMEOUT_MS);
    options.signal.addEventListener('abort', abort, { once: true });
    const settle = (result: AttemptResult): void => {
      if (settled) return;
      settled = true;
      options.clock.clearTimeout(timer);
      options.signal.removeEventListener('abort', abort);
      resolve(result);
    };
    req.on('response', (response) => {
      const received: AttemptResult = { kind: 'response', status: response.statusCode ?? 0, retryAfter: singleHeader(response.headers['retry-after']) ?? null };
      answer = received;
      drain(response, RESPONSE_BODY_LIMIT_BYTES, () => settle(received));
    });
    req.on('error', (error) => {
      // Once the status is in, an error while draining the body changes nothing.
      if (answer !== undefined) settle(answer);
      else if (isBlockedAddressError(error)) settle({ kind: 'blocked' });
      else if (timedOut) settle({ kind: 'timeout' });
      else settle({ kind: 'network', code: errorCode(error) });
    });
    if (options.signal.aborted) abort();
    else req.end(request.body ?? undefined);
  });
}

/**
 * Reads up to `limit` bytes and discards them, then calls `done`. A body read in full
 * leaves the connection to the agent for the next delivery; a longer one is cut off
 * (the socket goes with it). A body cut off by the deadline or a reset does not change
 * the answer: the status already arrived in time.
 */
function drain(response: IncomingMessage, limit: number, done: () => void): void {
  let read = 0;
  response.on('data', (chunk: Buffer) => {
    read += chunk.byteLength;
    if (read >= limit) {
      response.destroy();
      done();
    }
  });
  response.on('end', done);
  response.on('close', done);
  response.on('error', done);
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'network_error';
}
