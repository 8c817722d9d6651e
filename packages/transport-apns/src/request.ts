import type { OutgoingHttpHeaders } from 'node:http2';

/**
 * One push as the connection sends it: what its path and headers are made of. The
 * headers are made by the connection, on its thread (the worker's, by default), so that
 * the thread that answers the host's requests allocates none of them.
 */
export interface ApnsRequest {
  /**
   * The device and the activity or widget the push is for: a newer request with the same
   * key takes the place of one still waiting for a stream (docs/contract/apns.md#apns-latest-wins).
   */
  key: string;
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
