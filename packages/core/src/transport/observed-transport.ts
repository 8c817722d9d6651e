import type { SafeObserver } from '../observer.js';
import type { DeviceTransport } from './device-transport.js';

/** The name of a host transport that does not give one (`DeviceTransport.name`). */
export const DEFAULT_TRANSPORT_NAME = 'host';

/** The host's transport, with each push's outcome told to `observer` under the transport's name. */
export function observedTransport(transport: DeviceTransport, observer: SafeObserver): DeviceTransport {
  const name = transport.name ?? DEFAULT_TRANSPORT_NAME;
  // One pair of handlers per kind, made once: a fan-out calls this for every device.
  const handlers = (kind: 'activity' | 'widget') =>
    [
      () => observer.pushSettled({ transport: name, kind, outcome: 'delivered' }),
      (error: unknown) => {
        observer.pushSettled({ transport: name, kind, outcome: 'failed' });
        throw error;
      },
    ] as const;
  const [activityDelivered, activityFailed] = handlers('activity');
  const [widgetDelivered, widgetFailed] = handlers('widget');
  return {
    name,
    pushActivity: (deviceId, push) => transport.pushActivity(deviceId, push).then(activityDelivered, activityFailed),
    pushWidget: (deviceId, push) => transport.pushWidget(deviceId, push).then(widgetDelivered, widgetFailed),
  };
}
