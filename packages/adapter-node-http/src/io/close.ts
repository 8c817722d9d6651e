/**
 * The end of a response, as the core watches it: a plain 'close' listener, or one shared
 * AbortController per response.
 */
import type { ServerResponse } from 'node:http';

/**
 * Calls `fn` once the response is closed (at once if it is): 'close' comes once, so a
 * plain listener, without `once`'s wrapper, and no AbortSignal.
 */
export function whenClosed(res: ServerResponse, fn: () => void): void {
  if (res.closed) fn();
  else res.on('close', fn);
}

const controllers = new WeakMap<ServerResponse, AbortController>();

/**
 * One controller per response, aborted when it closes: the request's `signal` and an
 * event stream's sink share it (an AbortController is not small, and streams are many).
 */
export function closeController(res: ServerResponse): AbortController {
  let controller = controllers.get(res);
  if (controller === undefined) {
    const created = new AbortController();
    controllers.set(res, created);
    whenClosed(res, () => created.abort());
    controller = created;
  }
  return controller;
}

export function closeSignal(res: ServerResponse): AbortSignal {
  return closeController(res).signal;
}

/** Aborts the response's controller now, if one was made (the server ended the response). */
export function abortIfWatched(res: ServerResponse): void {
  controllers.get(res)?.abort();
}
