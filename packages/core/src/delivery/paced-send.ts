import { describeError, type Logger } from '../logger.js';

/**
 * Devices handed to the transport per turn of the event loop. How a fan-out is paced, as a
 * whole: docs/decisions/0058-apns-pacing.md.
 */
export const FANOUT_SLICE = 64;

/**
 * Pushes of one fan-out handed to the transport and not yet settled, at most. How a
 * fan-out is paced, as a whole: docs/decisions/0058-apns-pacing.md.
 */
export const FANOUT_WINDOW = 256;

/** Runs `then` in the next turn of the event loop, after pending I/O (not a delay, so not the injected clock). */
const nextTurn = (then: () => void): void => void (typeof setImmediate === 'function' ? setImmediate(then) : setTimeout(then, 0));

/**
 * Hands every device to `send`, FANOUT_SLICE per turn of the event loop and at most
 * FANOUT_WINDOW not yet settled (pacing: docs/decisions/0058-apns-pacing.md), and resolves
 * once every push settled; `stopped()` true ends the hand-over early (a superseded or
 * released job), and what was handed over still settles first. Each pending push costs
 * one promise reaction and its failure handler here (no array of promises, no wrapper
 * promise per push); the window keeps the rest of a batch as indexes into its list rather
 * than as waiting pushes, so that what stays live meanwhile, which every young-generation
 * collection copies, stays small.
 */
export function sendPaced(
  deviceIds: readonly string[],
  send: (deviceId: string) => Promise<unknown>,
  logger: Logger,
  stopped: () => boolean = () => false,
): Promise<void> {
  return new Promise((resolve) => {
    let total = deviceIds.length;
    let next = 0;
    let pending = 0;
    let done = 0;
    let scheduled = false;
    const schedule = () => {
      if (scheduled || next === total || pending >= FANOUT_WINDOW) return;
      scheduled = true;
      nextTurn(slice);
    };
    const settled = () => {
      pending -= 1;
      if (++done === total) resolve();
      else schedule();
    };
    const failed = (deviceId: string) => (error: unknown) => {
      logger.warn('push to a device failed', { deviceId, error: describeError(error) });
      settled();
    };
    const slice = () => {
      scheduled = false;
      if (stopped()) {
        // Nothing more is handed over: the batch ends with what is in flight.
        total = next;
        if (done === total) resolve();
        return;
      }
      const end = Math.min(total, next + FANOUT_SLICE, next + FANOUT_WINDOW - pending);
      while (next < end) {
        const deviceId = deviceIds[next++]!;
        pending += 1;
        let sent: Promise<unknown>;
        try {
          sent = send(deviceId);
        } catch (error) {
          failed(deviceId)(error);
          continue;
        }
        sent.then(settled, failed(deviceId));
      }
      schedule();
    };
    if (total === 0) resolve();
    else slice();
  });
}
