import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http2';
import { payloadProblem } from './payload.js';

/** A channel the double keeps: its id and message storage policy. */
export interface DoubleChannel {
  id: string;
  policy: 0 | 1;
}

/** What the double answers, before it is sent: a refusal's `reason`, or a success's headers and JSON body. */
export interface Reply {
  status: number;
  reason: string | null;
  retryAfter?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

/** A channel id as APNs makes them: base64 (the double makes 16 random bytes). Anything else is `BadChannelId`. */
export const isChannelId = (id: string): boolean => id.length > 0 && id.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(id);

const MAX_PAYLOAD_BYTES = 4096;

const refuse = (status: number, reason: string): Reply => ({ status, reason });

/**
 * The channels of one APNs environment (the double's origin) and what APNs answers about
 * them: the channel management API (docs/contract/broadcast-channels.md#broadcast-channel-management-api)
 * and the checks of a broadcast (docs/contract/broadcast-channels.md#broadcast-update-end).
 */
export class ChannelBook {
  private readonly channels = new Map<string, DoubleChannel>();

  constructor(private readonly limit: number) {}

  /** The channels that exist now, oldest first. */
  list(): DoubleChannel[] {
    return [...this.channels.values()].map((channel) => ({ ...channel }));
  }

  /** Makes a channel as `POST .../channels` would, past the limit too (a test's orphan). */
  add(policy: 0 | 1): string {
    const id = randomBytes(16).toString('base64');
    this.channels.set(id, { id, policy });
    return id;
  }

  /** Deletes a channel as `DELETE .../channels` would; false when there was none. */
  remove(id: string): boolean {
    return this.channels.delete(id);
  }

  /** A management request that passed the provider token and feature checks, answered and done. */
  manage(resource: 'channels' | 'all-channels', headers: IncomingHttpHeaders, body: Buffer): Reply {
    const method = headers[':method'];
    if (resource === 'all-channels')
      return method === 'GET' ? { status: 200, reason: null, body: { channels: [...this.channels.keys()] } } : refuse(405, 'MethodNotAllowed');
    if (method === 'POST') return this.create(body);
    if (method !== 'GET' && method !== 'DELETE') return refuse(405, 'MethodNotAllowed');
    const found = this.channelOf(headers);
    if ('status' in found) return found;
    if (method === 'GET') return { status: 200, reason: null, body: { 'message-storage-policy': found.policy, 'push-type': 'LiveActivity' } };
    this.channels.delete(found.id);
    return { status: 204, reason: null };
  }

  /** What APNs would refuse in a broadcast that passed the provider token and feature checks; null when it is good. */
  broadcastProblem(headers: IncomingHttpHeaders, body: Buffer, size: number): Reply | null {
    if (headers[':method'] !== 'POST') return refuse(405, 'MethodNotAllowed');
    if (String(headers['apns-push-type'] ?? '').toLowerCase() !== 'liveactivity') return refuse(400, 'InvalidPushType');
    const found = this.channelOf(headers);
    if ('status' in found) return found;
    if (!['5', '10'].includes(String(headers['apns-priority']))) return refuse(400, 'BadPriority');
    const expiration = headers['apns-expiration'];
    if (expiration !== undefined && !/^\d+$/.test(String(expiration))) return refuse(400, 'BadExpirationDate');
    // A channel that stores nothing takes pushes that expire at once (docs/contract/broadcast-channels.md#broadcast-storage-policy).
    if (found.policy === 0 && expiration !== '0') return refuse(400, 'BadExpirationDate');
    if (size === 0) return refuse(400, 'PayloadEmpty');
    if (size > MAX_PAYLOAD_BYTES) return refuse(413, 'PayloadTooLarge');
    const payload = parseJson(body.toString('utf8'));
    const problem = payloadProblem('liveactivity', payload) ?? (isStart(payload) ? 'a broadcast cannot start an activity' : null);
    return problem === null ? null : refuse(400, `DoubleBadPayload: ${problem}`);
  }

  /** `POST .../channels`: `{"message-storage-policy": 0 | 1, "push-type": "LiveActivity"}`, within the limit. */
  private create(body: Buffer): Reply {
    const asked = parseJson(body.toString('utf8'));
    if (typeof asked !== 'object' || asked === null) return refuse(400, 'DoubleBadPayload: the body is not a JSON object');
    const { 'message-storage-policy': policy, 'push-type': pushType } = asked as Record<string, unknown>;
    if (pushType !== 'LiveActivity') return refuse(400, 'InvalidPushType');
    if (policy !== 0 && policy !== 1) return refuse(400, 'DoubleBadPayload: message-storage-policy is not 0 or 1');
    if (this.channels.size >= this.limit) return refuse(400, 'CannotCreateChannelConfig');
    return { status: 201, reason: null, headers: { 'apns-channel-id': this.add(policy) } };
  }

  /** The channel `apns-channel-id` names, or the refusal: missing, malformed, or not (or no longer) a channel. */
  private channelOf(headers: IncomingHttpHeaders): DoubleChannel | Reply {
    const id = headers['apns-channel-id'];
    if (typeof id !== 'string' || id === '') return refuse(400, 'MissingChannelId');
    if (!isChannelId(id)) return refuse(400, 'BadChannelId');
    return this.channels.get(id) ?? refuse(400, 'ChannelNotRegistered');
  }
}

const isStart = (payload: unknown): boolean => (payload as { aps?: { event?: unknown } } | undefined)?.aps?.event === 'start';

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
