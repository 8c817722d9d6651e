import type { SafeObserver } from '../observer.js';
import { PUSH_OUTCOMES, type DeviceTransport, type PushOutcome, type PushReport, type PushResult } from './device-transport.js';

/** The name of a host transport that does not give one (`DeviceTransport.name`). */
export const DEFAULT_TRANSPORT_NAME = 'host';

const KNOWN_OUTCOMES: ReadonlySet<unknown> = new Set(PUSH_OUTCOMES);

/**
 * The outcome a transport resolved with: one of `PushOutcome`, alone or in a `PushReport`,
 * else `delivered` (a transport that tells nothing, as every transport did before outcomes
 * existed).
 */
export function outcomeOf(resolved: unknown): PushOutcome {
  if (KNOWN_OUTCOMES.has(resolved)) return resolved as PushOutcome;
  if (typeof resolved === 'object' && resolved !== null && KNOWN_OUTCOMES.has((resolved as PushReport).outcome)) return (resolved as PushReport).outcome;
  return 'delivered';
}

/** The reason a transport gave with its outcome, or the outcome's name when it gave none. */
export function reasonOf(resolved: unknown): string {
  const reason = typeof resolved === 'object' && resolved !== null ? (resolved as PushReport).reason : undefined;
  return typeof reason === 'string' && reason !== '' ? reason : outcomeOf(resolved);
}

/** The host's transport, with each push's outcome, as the transport told it, told to `observer` under the transport's name. */
export function observedTransport(transport: DeviceTransport, observer: SafeObserver): DeviceTransport {
  const name = transport.name ?? DEFAULT_TRANSPORT_NAME;
  // One pair of handlers per kind, made once: a fan-out calls this for every device.
  const handlers = (kind: 'activity' | 'widget') =>
    [
      (resolved: PushResult) => {
        observer.pushSettled({ transport: name, kind, outcome: outcomeOf(resolved) });
        // As told, with its reason: the dead letter sink after this keeps it.
        return resolved;
      },
      (error: unknown) => {
        observer.pushSettled({ transport: name, kind, outcome: 'failed' });
        throw error;
      },
    ] as const;
  const [activitySettled, activityFailed] = handlers('activity');
  const [widgetSettled, widgetFailed] = handlers('widget');
  return withBroadcast(transport, {
    name,
    pushActivity: (deviceId, push) => transport.pushActivity(deviceId, push).then(activitySettled, activityFailed),
    pushWidget: (deviceId, push) => transport.pushWidget(deviceId, push).then(widgetSettled, widgetFailed),
  });
}

/** `wrapper` of `transport`, with the transport's `broadcastActivity` when it has one (a broadcast is not a device's push: nothing to observe or keep per device). */
export function withBroadcast(transport: DeviceTransport, wrapper: DeviceTransport): DeviceTransport {
  const { broadcastActivity } = transport;
  if (broadcastActivity === undefined) return wrapper;
  return { ...wrapper, broadcastActivity: (broadcast) => broadcastActivity.call(transport, broadcast) };
}
