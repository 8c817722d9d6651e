/** The double's checks of a push's payload: Apple does not check these shapes, the double does. */

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The payload shapes of docs/contract/apns.md#apns-activity-start (or
 * docs/contract/broadcast-channels.md#broadcast-start), docs/contract/apns.md#apns-activity-update-end
 * and docs/contract/apns.md#apns-widget-push; null when the payload has the right shape.
 */
export function payloadProblem(pushType: string, payload: unknown): string | null {
  if (!isObject(payload) || !isObject(payload.aps)) return 'no aps object';
  const aps = payload.aps;
  if (Object.keys(payload).length !== 1) return 'keys beside aps';
  if (pushType === 'widgets') {
    return Object.keys(aps).length === 1 && aps['content-changed'] === true ? null : 'a widgets push is {"aps":{"content-changed":true}}';
  }
  if (!Number.isInteger(aps.timestamp)) return 'timestamp is not whole seconds';
  if (!isObject(aps['content-state'])) return 'content-state is not an object';
  const contentState = aps['content-state'];
  if (!('state' in contentState) || !('content' in contentState) || Object.keys(contentState).length !== 2) return 'content-state is not {state, content}';
  const allowed: Record<string, string[]> = {
    start: ['timestamp', 'event', 'content-state', 'attributes-type', 'attributes', 'alert', 'input-push-token', 'input-push-channel'],
    update: ['timestamp', 'event', 'content-state'],
    end: ['timestamp', 'event', 'content-state', 'dismissal-date'],
  };
  const keys = allowed[String(aps.event)];
  if (keys === undefined) return 'event is not start, update or end';
  const extra = Object.keys(aps).filter((k) => !keys.includes(k));
  if (extra.length > 0) return `unexpected aps keys: ${extra.join(', ')}`;
  if (aps.event === 'start') {
    if (typeof aps['attributes-type'] !== 'string') return 'attributes-type is not a string';
    const attributes = aps.attributes;
    if (!isObject(attributes) || typeof attributes.owner !== 'string' || typeof attributes.slug !== 'string' || typeof attributes.template !== 'string')
      return 'attributes is not {owner, slug, template}';
    if (!isObject(aps.alert) || typeof aps.alert.title !== 'string' || typeof aps.alert.body !== 'string') return 'alert is not {title, body}';
    // docs/contract/broadcast-channels.md#broadcast-start: a device that follows channels is named its channel instead.
    if ('input-push-channel' in aps) {
      if (typeof aps['input-push-channel'] !== 'string' || aps['input-push-channel'] === '') return 'input-push-channel is not a channel id';
      if ('input-push-token' in aps) return 'both input-push-token and input-push-channel';
    } else if (aps['input-push-token'] !== 1) return 'input-push-token is not 1';
  }
  if (aps.event === 'end' && !Number.isInteger(aps['dismissal-date'])) return 'dismissal-date is not whole seconds';
  return null;
}
