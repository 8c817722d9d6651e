/**
 * The shapes the FCM test double checks, and that `docs/android.md`'s examples are tested
 * against: the send request's `message` (docs/contract/android-fcm.md#fcm-message,
 * docs/contract/android-fcm.md#fcm-android-options) and what its `data.tilecast` decodes to.
 */

/** An FCM registration token: 1 to 4096 of `A-Z a-z 0-9 : _ -` (docs/contract/android-fcm.md#fcm-device-token). */
export const FCM_TOKEN_PATTERN = /^[A-Za-z0-9:_-]{1,4096}$/;

/** FCM refuses a data payload larger than this. */
export const FCM_DATA_MAX_BYTES = 4096;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What is wrong with a send request's body (`{"message": {...}}`), with the field at fault; null when it is right. */
export function messageProblem(body: unknown): { field: string; problem: string } | null {
  if (!isObject(body) || !isObject(body.message) || Object.keys(body).length !== 1) return { field: 'message', problem: 'the body is not {"message": {...}}' };
  const message = body.message;
  const extra = Object.keys(message).filter((key) => !['token', 'data', 'android'].includes(key));
  if (extra.length > 0)
    return { field: `message.${extra[0]}`, problem: `unexpected field ${extra.join(', ')} (a Tilecast message has token, data and android)` };
  if (typeof message.token !== 'string' || !FCM_TOKEN_PATTERN.test(message.token)) return { field: 'message.token', problem: 'not a registration token' };
  if (!isObject(message.data)) return { field: 'message.data', problem: 'a data message has a data object' };
  const values = Object.values(message.data);
  if (values.some((value) => typeof value !== 'string')) return { field: 'message.data', problem: 'every data value is a string' };
  if (Buffer.byteLength(JSON.stringify(message.data)) > FCM_DATA_MAX_BYTES) return { field: 'message.data', problem: 'the data is larger than 4096 bytes' };
  if (Object.keys(message.data).join() !== 'tilecast') return { field: 'message.data', problem: 'the data is {"tilecast": "<json>"}' };
  const android = message.android;
  if (!isObject(android)) return { field: 'message.android', problem: 'no android options' };
  if (Object.keys(android).sort().join() !== 'collapse_key,priority,ttl')
    return { field: 'message.android', problem: 'android is {collapse_key, priority, ttl}' };
  if (android.priority !== 'high' && android.priority !== 'normal') return { field: 'message.android.priority', problem: 'priority is high or normal' };
  if (android.ttl !== '3600s') return { field: 'message.android.ttl', problem: 'ttl is 3600s' };
  let data: unknown;
  try {
    data = JSON.parse(message.data.tilecast as string);
  } catch {
    return { field: 'message.data', problem: 'data.tilecast is not JSON' };
  }
  const problem = tilecastDataProblem(data);
  if (problem !== null) return { field: 'message.data', problem: `data.tilecast: ${problem}` };
  const { owner, slug } = data as { owner: string; slug: string };
  if (android.collapse_key !== `${owner}/${slug}`) return { field: 'message.android.collapse_key', problem: 'collapse_key is <owner>/<slug>' };
  return null;
}

const DATA_KEYS = ['kind', 'owner', 'slug', 'event', 'state', 'content', 'timestamp', 'dismissal_date'];

/** What is wrong with a decoded `data.tilecast`; null when it has the right shape. */
export function tilecastDataProblem(data: unknown): string | null {
  if (!isObject(data)) return 'not an object';
  const extra = Object.keys(data).filter((key) => !DATA_KEYS.includes(key));
  if (extra.length > 0) return `unexpected keys ${extra.join(', ')}`;
  const missing = DATA_KEYS.filter((key) => key !== 'content' && !(key in data));
  if (missing.length > 0) return `missing ${missing.join(', ')}`;
  if (typeof data.owner !== 'string' || typeof data.slug !== 'string') return 'owner and slug are strings';
  if (!Number.isInteger(data.timestamp)) return 'timestamp is not whole seconds';
  if (data.kind === 'widget') {
    if (data.event !== 'changed') return 'a widget message is "changed"';
    if (data.state !== null || data.dismissal_date !== null) return 'a widget message has null state and dismissal_date';
    if ('content' in data) return 'a widget message carries no content';
    return null;
  }
  if (data.kind !== 'activity') return 'kind is activity or widget';
  if (!['start', 'update', 'end'].includes(String(data.event))) return 'an activity event is start, update or end';
  if (data.state !== 'IDLE' && data.state !== 'ONGOING') return 'state is IDLE or ONGOING';
  if ('content' in data && !isObject(data.content)) return 'content is an object when present';
  if (data.event === 'end' ? !Number.isInteger(data.dismissal_date) : data.dismissal_date !== null) return 'dismissal_date is whole seconds on end, else null';
  return null;
}
