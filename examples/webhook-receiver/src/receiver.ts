import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { LRUCache } from 'lru-cache';
import { verifyWebhook, WebhookVerificationError } from '@tilecast/core/verify';

export interface ReceiverOptions {
  /** The `secret` of the webhook entry. */
  secret: string;
  /**
   * The public `https://host` Tilecast calls (TLS usually ends at a proxy in front of
   * this process): the signature covers the exact URL called.
   */
  publicBaseUrl: string;
  /** Called once per event id, with the parsed envelope (or the raw body of a custom template). */
  onEvent(eventId: string, body: unknown): void | Promise<void>;
  /** How many event ids to remember for de-duplication. Default 10,000. */
  remember?: number;
}

/** Bodies are small (a 2 KiB template or an envelope); anything larger is not from Tilecast. */
const MAX_BODY_BYTES = 64 * 1024;

/**
 * A request listener that accepts only authentic, fresh Tilecast webhooks and hands each
 * event to `onEvent` once, however often it is delivered (a retry keeps its
 * `Idempotency-Key`, so a retried delivery is answered `200` and not processed again).
 */
export function createWebhookReceiver(options: ReceiverOptions): RequestListener {
  const seen = new LRUCache<string, true>({ max: options.remember ?? 10_000 });
  return (req, res) => void receive(req, res, options, seen);
}

async function receive(req: IncomingMessage, res: ServerResponse, options: ReceiverOptions, seen: LRUCache<string, true>): Promise<void> {
  const body = await readBody(req);
  if (body === null) return answer(res, 413);
  try {
    const { eventId } = await verifyWebhook({
      secret: options.secret,
      headers: req.headers,
      method: req.method ?? 'GET',
      url: new URL(req.url ?? '/', options.publicBaseUrl).toString(),
      body,
    });
    if (seen.has(eventId)) return answer(res, 200); // a retry of what we already have
    seen.set(eventId, true);
    await options.onEvent(eventId, parse(body));
    answer(res, 200);
  } catch (error) {
    // 401 is final for Tilecast (no retry); a failure of our own is a 500, which it retries once.
    if (error instanceof WebhookVerificationError) return answer(res, 401);
    answer(res, 500);
  }
}

function parse(body: Uint8Array): unknown {
  const text = Buffer.from(body).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function readBody(req: IncomingMessage): Promise<Uint8Array | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > MAX_BODY_BYTES) {
        req.destroy();
        resolve(null);
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function answer(res: ServerResponse, status: number): void {
  if (!res.headersSent) res.writeHead(status).end();
}
