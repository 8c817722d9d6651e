import type { PushRequest, RequestFormat } from '@tilecast/core/push';
import { apnsReason } from './request.js';

/**
 * One broadcast push (docs/contract/broadcast-channels.md#broadcast-update-end): sent
 * through `@tilecast/core/push`'s ConnectionPool on this thread, as its answer is only a
 * status and a reason (one request per update and environment: no worker needed).
 */
export interface BroadcastRequest extends PushRequest {
  /** `apns-channel-id`. */
  channelId: string;
  /** `apns-priority` as for per-token pushes (docs/contract/apns.md#apns-priority). */
  priority: 5 | 10;
  /** `apns-expiration` in epoch seconds, 0 on a channel of storage policy 0 (docs/contract/broadcast-channels.md#broadcast-storage-policy). */
  expiration: number;
  /** The payload of a per-token push (docs/contract/apns.md#apns-activity-update-end). */
  body: string;
}

/** `POST /4/broadcasts/apps/<bundle>` requests of the app `bundleId`. */
export function broadcastFormat(bundleId: string): RequestFormat<BroadcastRequest> {
  const path = `/4/broadcasts/apps/${bundleId}`;
  return {
    headers: (request, authorization) => ({
      ':method': 'POST',
      ':path': path,
      authorization,
      'apns-channel-id': request.channelId,
      'apns-push-type': 'liveactivity',
      'apns-priority': String(request.priority),
      'apns-expiration': String(request.expiration),
    }),
    body: (request) => request.body,
    reason: apnsReason,
    fields: 5,
    encode(request, into) {
      into.push(request.key, request.channelId, request.priority, request.expiration, request.body);
    },
    decode(from, at) {
      return {
        key: from[at] as string,
        channelId: from[at + 1] as string,
        priority: from[at + 2] as 5 | 10,
        expiration: from[at + 3] as number,
        body: from[at + 4] as string,
      };
    },
  };
}
