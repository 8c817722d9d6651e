import type { OutgoingHttpHeaders } from 'node:http2';
import type { PushRequest, RequestFormat } from '@tilecast/core/push';

/**
 * One push as the connection sends it: what its path and headers are made of. The
 * headers are made by the connection, on its thread (the worker's, by default), so that
 * the thread that answers the host's requests allocates none of them.
 */
export interface ApnsRequest extends PushRequest {
  /** The device token (lower-case hex): the path is `/3/device/<token>`. */
  token: string;
  pushType: 'liveactivity' | 'widgets';
  topic: string;
  /** `apns-priority`, or null to send none (APNs's default, 10). */
  priority: 5 | 10 | null;
  /** `apns-expiration`, in epoch seconds. */
  expiration: number;
  body: string;
}

/** The request's HTTP/2 headers, with the provider token's `authorization`. */
export function apnsHeaders(request: ApnsRequest, authorization: string): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {
    ':method': 'POST',
    ':path': `/3/device/${request.token}`,
    authorization,
    'apns-push-type': request.pushType,
    'apns-topic': request.topic,
    'apns-expiration': String(request.expiration),
  };
  if (request.priority !== null) headers['apns-priority'] = String(request.priority);
  return headers;
}

/** An APNs refusal's `reason` (its body is `{"reason": "..."}`), or null. */
export function apnsReason(_status: number, text: string): string | null {
  if (text === '') return null;
  try {
    const parsed: unknown = JSON.parse(text);
    const reason = (parsed as { reason?: unknown } | null)?.reason;
    return typeof reason === 'string' ? reason : null;
  } catch {
    return null;
  }
}

/** APNs requests for the shared connections (`@tilecast/core/push`), in this thread or the connection worker. */
export const APNS_FORMAT: RequestFormat<ApnsRequest> = {
  headers: apnsHeaders,
  body: (request) => request.body,
  reason: apnsReason,
  fields: 7,
  encode(request, into) {
    into.push(request.key, request.token, request.pushType, request.topic, request.priority, request.expiration, request.body);
  },
  decode(from, at) {
    return {
      key: from[at] as ApnsRequest['key'],
      token: from[at + 1] as ApnsRequest['token'],
      pushType: from[at + 2] as ApnsRequest['pushType'],
      topic: from[at + 3] as ApnsRequest['topic'],
      priority: from[at + 4] as ApnsRequest['priority'],
      expiration: from[at + 5] as ApnsRequest['expiration'],
      body: from[at + 6] as ApnsRequest['body'],
    };
  },
};
