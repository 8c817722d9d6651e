import type { IncomingMessage } from 'node:http';

/**
 * Reads the whole body, or stops at `limit + 1` bytes without buffering the rest. A client
 * that goes away first (before or during the read) makes it `'aborted'`.
 */
export function readLimited(req: IncomingMessage, limit: number): Promise<Uint8Array | 'too_large' | 'aborted'> {
  // Gone before the read began: its 'close' has passed, so no listener would ever hear it.
  if (req.destroyed && !req.complete) return Promise.resolve('aborted');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        cleanup();
        req.pause();
        resolve('too_large');
        return;
      }
      chunks.push(chunk);
    };
    // Removed at the end too: left attached, they keep the finished request and its body alive.
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    // Node's request stream only fails when its connection does (the client reset it or
    // left mid-body): that is the client's abort, not a failure of the service. It emits
    // that 'error' only to a listener (none here: one listener fewer to add and remove per
    // request), and 'close' follows in every case.
    const onClose = () => {
      if (req.complete) return;
      cleanup();
      resolve('aborted');
    };
    // 'close' comes after 'end' for a complete request (and is then ignored), so a
    // settled promise is never settled again.
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
  });
}
