import type { TilecastContext } from '../context.js';
import { isStorageUnavailable } from '../errors.js';
import { describeError } from '../logger.js';
import type { CoreResult, SseSink } from '../http/types.js';
import { storeErrorKind } from '../observer.js';
import { sseRetry } from './format.js';

/**
 * The answer to a temporary outage on a stream endpoint (docs/contract/events-and-webhooks.md#sse-outage-stream): `200`, a `retry:` line,
 * then the end. The client reconnects after the delay (a browser's `EventSource` would
 * stop reconnecting after a `503`).
 */
export function outageStream(): CoreResult {
  return {
    kind: 'sse',
    run: async (sink: SseSink) => {
      await sink.write(`${sseRetry()}\n`);
      sink.end();
    },
  };
}

/**
 * Opens a stream endpoint (`GET /events`, `GET /device/stream`): a store outage at any
 * step before the stream runs, authentication included, is the outage stream. Every other
 * failure goes on as it is (a refusal keeps its status; an unexpected error stays a 500).
 * While the instance drains, every stream request gets the same answer.
 */
export function streamOrOutage(context: TilecastContext, path: string, open: () => Promise<CoreResult>): Promise<CoreResult> {
  // A draining instance sends the client elsewhere the same way, before any store call.
  if (context.sseConnections.draining) return Promise.resolve(outageStream());
  return open().catch((error: unknown) => {
    if (!isStorageUnavailable(error)) throw error;
    context.logger.warn('storage unavailable: outage stream', { path, error: describeError(error) });
    context.observer?.storeError({ kind: storeErrorKind(error) });
    return outageStream();
  });
}
