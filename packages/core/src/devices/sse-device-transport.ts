import type { ActivityPush, DeviceTransport, PushResult, WidgetPush } from '../transport/device-transport.js';
import type { SafeObserver } from '../observer.js';
import { sseEvent } from '../sse/format.js';

/** One open `GET /device/stream`: takes framed pushes in order. */
export interface DeviceConnection {
  deliver(text: string): void;
}

/**
 * The device transport of the reference deployment: pushes go to the device's open
 * `/device/stream` connections on this instance (a device that is not connected misses
 * them, as a phone without network would; it gets a fresh snapshot when it connects).
 */
export interface SseDeviceTransport extends DeviceTransport {
  attach(deviceId: string, connection: DeviceConnection): () => void;
  connectedDevices(): number;
  /** The devices with an open stream on this instance. */
  connectedIds(): Iterable<string>;
}

/** `observer`, when given, is told of every push: delivered to an open stream, or not connected here. */
export function createSseDeviceTransport(observer?: SafeObserver): SseDeviceTransport {
  const connections = new Map<string, Set<DeviceConnection>>();
  // One push object goes to every device of a fan-out: frame it once, and only when
  // some device is connected here.
  const frames = new WeakMap<object, string>();
  const deliver = (deviceId: string, event: 'widget' | 'activity', push: object, data: () => object = () => push) => {
    const open = connections.get(deviceId);
    if (observer !== undefined)
      observer.pushSettled({ transport: DEVICE_STREAM_TRANSPORT, kind: event, outcome: open === undefined ? 'not_connected' : 'delivered' });
    if (open === undefined) return;
    let text = frames.get(push);
    if (text === undefined) frames.set(push, (text = sseEvent({ event, data: data() })));
    for (const connection of open) connection.deliver(text);
  };
  // Delivery is synchronous: every push answers the same settled promise (none made per push).
  return {
    pushWidget(deviceId, push: WidgetPush) {
      deliver(deviceId, 'widget', push);
      return DONE;
    },
    pushActivity(deviceId, push: ActivityPush) {
      deliver(deviceId, 'activity', push, () => streamActivity(push));
      return DONE;
    },
    attach(deviceId, connection) {
      let set = connections.get(deviceId);
      if (!set) connections.set(deviceId, (set = new Set()));
      set.add(connection);
      return () => {
        set.delete(connection);
        if (set.size === 0 && connections.get(deviceId) === set) connections.delete(deviceId);
      };
    },
    connectedDevices: () => connections.size,
    connectedIds: () => connections.keys(),
  };
}

/** The device stream's name in push observations. */
export const DEVICE_STREAM_TRANSPORT = 'device_stream';

/** The `event: activity` data of docs/contract/device-api.md#device-stream-activity-event: exactly these fields. */
function streamActivity(push: ActivityPush): object {
  const { owner, slug, phase, state, content, dismissal_delay_s } = push;
  return { owner, slug, phase, state, content, dismissal_delay_s };
}

const DONE: Promise<void> = Promise.resolve();

/**
 * Sends every push to each transport; one failing (rejecting or throwing) never stops the
 * other. The push fails with the first failure, in the order of `transports`, once every
 * transport settled. Called once per device of a fan-out: no array or async frame per push.
 */
export function combineTransports(transports: DeviceTransport[]): DeviceTransport {
  if (transports.length === 1) return transports[0]!;
  const all = (send: (t: DeviceTransport) => Promise<PushResult>): Promise<PushResult> => {
    let combined: Promise<PushResult> | undefined;
    for (const transport of transports) {
      const sent = attempt(send, transport);
      // The device stream's answer: already delivered, nothing to wait for or chain.
      if (sent === DONE) continue;
      combined = combined === undefined ? sent : afterBoth(combined, sent);
    }
    return combined ?? DONE;
  };
  return {
    pushWidget: (deviceId, push) => all((t) => t.pushWidget(deviceId, push)),
    pushActivity: (deviceId, push) => all((t) => t.pushActivity(deviceId, push)),
  };
}

function attempt(send: (t: DeviceTransport) => Promise<PushResult>, transport: DeviceTransport): Promise<PushResult> {
  try {
    return send(transport);
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * Settles once both did: rejected with `first`'s reason if it failed, else as `second`.
 * Both get their handlers at once, so that neither is ever an unhandled rejection.
 */
function afterBoth(first: Promise<PushResult>, second: Promise<PushResult>): Promise<PushResult> {
  const secondOutcome = second.then(noFailure, (error: unknown) => ({ error }));
  return first.then(
    () => secondOutcome.then(rethrow),
    (error: unknown) => secondOutcome.then(() => Promise.reject(error)),
  );
}

const noFailure = (): undefined => undefined;
const rethrow = (outcome: { error: unknown } | undefined): Promise<never> | undefined => (outcome === undefined ? undefined : Promise.reject(outcome.error));
