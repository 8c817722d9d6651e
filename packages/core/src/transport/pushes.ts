/**
 * What a device is told, built from the stored records: one shape for every transport (the
 * device stream's snapshot and the background fan-out alike).
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
