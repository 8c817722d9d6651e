import type { ActivityPush, DeviceTransport, WidgetPush } from './device-transport.js';

export type RecordedPush = { deviceId: string; kind: 'activity'; push: ActivityPush } | { deviceId: string; kind: 'widget'; push: WidgetPush };

export interface RecordingTransport extends DeviceTransport {
  /** Every push in the order it was handed to the transport. */
  readonly pushes: RecordedPush[];
  /** Makes pushes to this device fail (to test that one device never fails the others). */
  failFor(deviceId: string): void;
  clear(): void;
}

/** A transport that records pushes, for tests and for embedders' own tests. */
export function createRecordingTransport(): RecordingTransport {
  const pushes: RecordedPush[] = [];
  const failing = new Set<string>();
  const record = async (entry: RecordedPush): Promise<void> => {
    if (failing.has(entry.deviceId)) throw new Error(`device ${entry.deviceId} is unreachable`);
    pushes.push(structuredClone(entry));
  };
  return {
    pushes,
    failFor: (deviceId) => void failing.add(deviceId),
    clear: () => void pushes.splice(0),
    pushActivity: (deviceId, push) => record({ deviceId, kind: 'activity', push }),
    pushWidget: (deviceId, push) => record({ deviceId, kind: 'widget', push }),
  };
}

/** A transport that drops every push (for hosts' tests). Pushes to devices connected to `/device/stream` still go out. */
export const nullTransport: DeviceTransport = {
  pushActivity: async () => {},
  pushWidget: async () => {},
};
