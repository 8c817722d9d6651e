/**
 * What a device is told, built from the stored records: the pushes (one shape for every
 * transport, the device stream's snapshot and the background fan-out alike), and what the
 * device sync API answers. The two differ on purpose (a push has a phase and always a time;
 * a listing has neither until the record was first published), so each shape is built here,
 * once, from the same record.
 */
import type { ActivityRecord, WidgetRecord } from '../storage/records.js';
import type { ActivityPush, WidgetPush } from './device-transport.js';

/** What a device is told about an activity (docs/contract/device-api.md#device-stream-activity-event). */
export function activityPush(activity: ActivityRecord, phase: ActivityPush['phase']): ActivityPush {
  return {
    owner: activity.accountId,
    slug: activity.slug,
    phase,
    state: activity.state,
    content: activity.content,
    dismissal_delay_s: activity.dismissalDelayS,
    template: activity.template,
    updated_at: activity.updatedAt ?? '',
  };
}

/** What a device is told about a widget (docs/contract/device-api.md#device-stream-widget-event). Only for a widget with content. */
export function widgetPush(widget: WidgetRecord): WidgetPush {
  return {
    owner: widget.accountId,
    slug: widget.slug,
    content: widget.content,
    stale_after: widget.staleAfter,
    updated_at: widget.updatedAt ?? '',
    privacy: widget.privacy,
  };
}

export interface DeviceWidget {
  owner: string;
  slug: string;
  template: string;
  content: unknown;
  stale_after: number | null;
  updated_at: string | null;
  privacy: WidgetRecord['privacy'];
}

export interface DeviceActivity {
  owner: string;
  slug: string;
  template: string;
  state: ActivityRecord['state'];
  content: unknown;
  dismissal_delay_s: number;
  updated_at: string | null;
}

/** A widget as the device sync API shows it (`GET /device/widgets`): its content is null until first published. */
export function deviceWidget(widget: WidgetRecord): DeviceWidget {
  return {
    owner: widget.accountId,
    slug: widget.slug,
    template: widget.template,
    content: widget.updatedAt === null ? null : widget.content,
    stale_after: widget.staleAfter,
    updated_at: widget.updatedAt,
    privacy: widget.privacy,
  };
}

/** An activity as the device sync API shows it (`GET /device/activities`): no phase, and no time until first published. */
export function deviceActivity(activity: ActivityRecord): DeviceActivity {
  return {
    owner: activity.accountId,
    slug: activity.slug,
    template: activity.template,
    state: activity.state,
    content: activity.content,
    dismissal_delay_s: activity.dismissalDelayS,
    updated_at: activity.updatedAt,
  };
}
