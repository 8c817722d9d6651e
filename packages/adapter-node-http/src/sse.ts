/** An event stream over a `node:http` response: its head, and the sink the core writes to. */
import type { ServerResponse } from 'node:http';
import { responseHead, type CoreResult, type SseSink } from '@tilecast/core/adapter';
import { abortIfWatched, closeController, whenClosed } from './io/close.js';

/** Not an async function, like `handleNodeRequest`: a stream lives for minutes, and so would a suspended frame. */
export function runEventStream(res: ServerResponse, result: Extract<CoreResult, { kind: 'sse' }>): Promise<void> {
  const { status, headers } = responseHead(result);
  res.writeHead(status, headers);
  res.flushHeaders();
  const sink = new NodeSseSink(res);
  // Ended whatever way the run ends (`finally` would keep two more closures per stream).
  // A run that failed leaves an ended response: nothing more to answer.
  const end = () => sink.end();
  return result.run(sink).then(end, end);
}

/** What every SSE write answers: one settled promise, not a new one per write. */
const written = Promise.resolve();

/**
 * A class, not a literal with a getter: one per open stream, so its size counts. The core
 * watches it through `onClose`; its `signal` (an AbortController) is made only if read.
 */
class NodeSseSink implements SseSink {
  constructor(private readonly res: ServerResponse) {}

  get bufferedBytes(): number {
    return this.res.writableLength;
  }

  get signal(): AbortSignal {
    const controller = closeController(this.res);
    if (this.res.writableEnded) controller.abort(); // ended by the server: aborted too
    return controller.signal;
  }

  onClose(fn: () => void): void {
    whenClosed(this.res, fn);
  }

  write(text: string): Promise<void> {
    // No waiting for 'drain': the core watches `bufferedBytes` and ends a stream whose
    // client stopped reading (docs/contract/events-and-webhooks.md#sse-slow-consumer-cutoff), instead of stalling its loop.
    if (!this.res.closed && !this.res.writableEnded) this.res.write(text);
    return written;
  }

  end(): void {
    if (!this.res.writableEnded) this.res.end();
    // Ended by the server: the signal, if made, says so now (as the contract has it), not
    // only once the connection closes.
    abortIfWatched(this.res);
  }
}
