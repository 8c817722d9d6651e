import type { OutgoingHttpHeaders } from 'node:http2';
import type { PushRequest, RequestFormat } from '@tilecast/core/push';

/**
 * One message as the connection sends it: `POST <path>` with the JSON body
 * `{"message":{"token":<token>,<tail>`. The body is put together by the connection, on its
 * thread (`FCM_FORMAT.body`): the thread that answers the host's requests then makes no
 * string per push, and the tail is one string for every device of a fan-out.
 */
export interface FcmRequest extends PushRequest {
  /** `/v1/projects/<project>/messages:send`. */
  path: string;
  /** The device's registration token (removed from the registry when FCM refuses it). */
  token: string;
  /** The message after its token (`Message.tail`, message.ts): the same for every device of a push. */
  tail: string;
}

/**
 * Characters JSON writes as they are: a registration token made of these alone (FCM's are
 * letters, digits, `:`, `-` and `_`) is its JSON string with quotes around it.
 */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * The request's body: `{"message":{"token":<token>,...}}`. A plain token is quoted
 * directly: no JSON.stringify and no string of its own per push, the same bytes.
 */
export const fcmBody = ({ token, tail }: FcmRequest): string =>
  PLAIN.test(token) ? `{"message":{"token":"${token}",${tail}` : `{"message":{"token":${JSON.stringify(token)},${tail}`;

/** The request's HTTP/2 headers, with the access token's `authorization`. */
export function fcmHeaders(request: FcmRequest, authorization: string): OutgoingHttpHeaders {
  return { ':method': 'POST', ':path': request.path, authorization, 'content-type': 'application/json' };
}

const FCM_ERROR = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';
const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';
/** The field an `INVALID_ARGUMENT` names when the registration token is what is wrong. */
export const TOKEN_FIELD = 'message.token';

/**
 * An FCM refusal's reason: the `errorCode` of its `FcmError` detail (`UNREGISTERED`,
 * `QUOTA_EXCEEDED`, ...), else its `status` (`UNAUTHENTICATED`, ...); with ` message.token`
 * after it when a `BadRequest` detail names the registration token as the field at fault.
 * Null when the body says none of these (docs/contract/android-fcm.md#fcm-answers-detail).
 */
export function fcmReason(_status: number, text: string): string | null {
  if (text === '') return null;
  let error: { status?: unknown; details?: unknown };
  try {
    const parsed = JSON.parse(text) as { error?: unknown } | null;
    if (typeof parsed?.error !== 'object' || parsed.error === null) return null;
    error = parsed.error as typeof error;
  } catch {
    return null;
  }
  const details = Array.isArray(error.details) ? (error.details as Array<Record<string, unknown> | null>) : [];
  const fcmError = details.find((detail) => detail?.['@type'] === FCM_ERROR)?.errorCode;
  const code = typeof fcmError === 'string' ? fcmError : typeof error.status === 'string' ? error.status : null;
  const namesToken = details.some(
    (detail) =>
      detail?.['@type'] === BAD_REQUEST &&
      Array.isArray(detail.fieldViolations) &&
      detail.fieldViolations.some((violation: { field?: unknown } | null) => violation?.field === TOKEN_FIELD),
  );
  return code === null ? null : namesToken ? `${code} ${TOKEN_FIELD}` : code;
}

/** FCM requests for the shared connections (`@tilecast/core/push`), in this thread or the connection worker. */
export const FCM_FORMAT: RequestFormat<FcmRequest> = {
  headers: fcmHeaders,
  body: fcmBody,
  reason: fcmReason,
  fields: 4,
  encode(request, into) {
    into.push(request.key, request.path, request.token, request.tail);
  },
  decode(from, at) {
    return { key: from[at] as string, path: from[at + 1] as string, token: from[at + 2] as string, tail: from[at + 3] as string };
  },
};
