/**
 * One webhook attempt: one HTTP request through the guarded agent, never following a
 * redirect, bounded by a deadline on the injected clock, reading at most 64 KiB of the
 * answer and dropping it (the owner never sees a receiver's body).
 */
import type { Agent } from 'node:https';
import fetch from 'node-fetch';
import type { Clock } from '../clock.js';
import { isBlockedAddressError } from './address-guard.js';

/** Each attempt has 2 seconds to receive an answer (spec "Delivery rules for webhooks" 1). */
export const ATTEMPT_TIMEOUT_MS = 2000;
/** Response bytes read before the rest is dropped (reference-deployment §9). */
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

export async function sendAttempt(request: OutgoingRequest, options: AttemptOptions): Promise<AttemptResult> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = options.clock.setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, ATTEMPT_TIMEOUT_MS);
  const onClose = (): void => controller.abort();
  options.signal.addEventListener('abort', onClose, { once: true });
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body ?? undefined,
      agent: options.agent,
      redirect: 'manual',
      follow: 0,
      // No Accept-Encoding, no inflating: a compressed bomb is never expanded.
      compress: false,
      signal: controller.signal,
    });
    await drain(response.body, RESPONSE_BODY_LIMIT_BYTES);
    return { kind: 'response', status: response.status, retryAfter: response.headers.get('retry-after') };
  } catch (error) {
    if (isBlockedAddressError(error)) return { kind: 'blocked' };
    if (timedOut) return { kind: 'timeout' };
    return { kind: 'network', code: errorCode(error) };
  } finally {
    options.clock.clearTimeout(timer);
    options.signal.removeEventListener('abort', onClose);
  }
}

/**
 * Reads up to `limit` bytes and discards them, then destroys the stream. A body cut off by
 * the deadline does not change the answer: the status already arrived in time.
 */
async function drain(body: NodeJS.ReadableStream | null, limit: number): Promise<void> {
  if (body === null) return;
  let read = 0;
  try {
    for await (const chunk of body) {
      read += (chunk as Uint8Array).byteLength;
      if (read >= limit) break;
    }
  } catch {
    // Aborted or reset mid-body: the answer (status) stands.
  } finally {
    (body as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
  }
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'network_error';
}
