import type { ActivityStateName, WidgetPrivacy } from '../storage/records.js';

/** What a device is told about an activity (reference-deployment §5, `event: activity`). */
export interface ActivityPush {
  owner: string;
  slug: string;
  phase: 'start' | 'update' | 'end';
  state: ActivityStateName;
  content: unknown;
  dismissal_delay_s: number;
  /**
   * The activity's template and the update's ISO 8601 time. Not part of the device
   * stream's `event: activity` (which carries only the fields above): an APNs transport
   * needs them for the Live Activity's `attributes` and the push's `timestamp`.
   */
  template: string;
  updated_at: string;
}

/** What a device is told about a widget (reference-deployment §5, `event: widget`). */
export interface WidgetPush {
  owner: string;
  slug: string;
  content: unknown;
  stale_after: number | null;
  updated_at: string;
  privacy: WidgetPrivacy;
}

/**
 * Carries pushes to devices: the reference deployment's SSE device stream, APNs in a
 * real deployment, a recorder in tests. A rejected promise fails only that device's
 * push; it never fails the publisher's request nor blocks other devices.
 */
export interface DeviceTransport {
  /** What push metrics call it (`apns`): a short fixed name, never an address. Default `host`. */
  readonly name?: string;
  pushActivity(deviceId: string, push: ActivityPush): Promise<void>;
  pushWidget(deviceId: string, push: WidgetPush): Promise<void>;
}
