import type { SafeObserver } from '../observer.js';
import type { DeviceTransport } from './device-transport.js';

/** The name of a host transport that does not give one (`DeviceTransport.name`). */
export const DEFAULT_TRANSPORT_NAME = 'host';

/** The host's transport, with each push's outcome told to `observer` under the transport's name. */
export function observedTransport(transport: DeviceTransport, observer: SafeObserver): DeviceTransport {
  const name = transport.name ?? DEFAULT_TRANSPORT_NAME;
  const observe = (kind: 'activity' | 'widget', sent: Promise<void>): Promise<void> =>
    sent.then(
      () => observer.pushSettled({ transport: name, kind, outcome: 'delivered' }),
      (error: unknown) => {
        observer.pushSettled({ transport: name, kind, outcome: 'failed' });
        throw error;
      },
    );
  return {
    name,
    pushActivity: (deviceId, push) => observe('activity', transport.pushActivity(deviceId, push)),
    pushWidget: (deviceId, push) => observe('widget', transport.pushWidget(deviceId, push)),
  };
}
