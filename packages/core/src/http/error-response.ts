import type { ServiceError } from '../errors.js';
import type { CoreResult } from './types.js';

/**
 * The one place where a typed refusal becomes an HTTP status, headers and body.
 * Detail strings are the contract's (docs/contract/limits-and-errors.md#errors, docs/contract/limits-and-errors.md#errors-deployment,
 * docs/contract/limits-and-errors.md#errors-tilecast), byte for byte. Every `401` names its
 * scheme (docs/contract/publisher-api.md#auth-401-challenge); a refusal of a broken request
 * closes the connection, as what follows on it cannot be trusted
 * (docs/contract/limits-and-errors.md#broken-request-closes).
 */
export function errorToResult(error: ServiceError): CoreResult {
  switch (error.kind) {
    case 'unauthorized':
      return detail(401, 'Could not validate credentials', { 'www-authenticate': error.scheme ?? 'Token' });
    case 'subscription_required':
      return detail(402, 'No active subscription was found');
    case 'activity_not_found':
      return detail(404, 'Activity not found');
    case 'widget_not_found':
      return detail(404, 'Widget not found');
    case 'template_mismatch':
      return detail(400, 'Template mismatch');
    case 'validation':
      return { kind: 'json', status: 422, body: { detail: error.errors } };
    case 'too_many_ongoing_activities':
      return detail(422, 'Too many ongoing activities');
    case 'invalid_widget_content':
      return detail(422, 'Invalid widget content');
    case 'payload_too_large':
      return detail(413, 'Request body too large', { connection: 'close' });
    case 'unsupported_media_type':
      return detail(415, 'Unsupported Media Type');
    case 'too_many_event_streams':
      return detail(429, 'Too many event streams');
    case 'too_many_device_streams':
      return detail(429, 'Too many device streams');
    case 'too_many_presses':
      return detail(429, 'Too many presses');
    case 'invalid_subject_filter':
      return detail(422, `Invalid subject filter: ${error.value}`);
    case 'route_not_found':
      return detail(404, 'Not Found');
    case 'method_not_allowed':
      return detail(405, 'Method Not Allowed', { allow: error.allow.join(', ') });
    case 'bad_request':
      return detail(400, 'Bad Request', { connection: 'close' });
    case 'request_header_fields_too_large':
      return detail(431, 'Request Header Fields Too Large', { connection: 'close' });
    case 'request_timeout':
      return detail(408, 'Request Timeout', { connection: 'close' });
    case 'expectation_failed':
      return detail(417, 'Expectation Failed', { connection: 'close' });
    case 'request_aborted':
      return detail(400, 'Request aborted', { connection: 'close' });
    case 'storage_unavailable':
      return detail(503, 'Service Unavailable');
  }
}

/** What a request gets when something unexpected failed; the cause goes to the log only (docs/contract/limits-and-errors.md#error-internal). */
export function internalErrorResult(): CoreResult {
  return detail(500, 'Internal Server Error');
}

function detail(status: number, text: string, headers?: Record<string, string>): CoreResult {
  return headers === undefined ? { kind: 'json', status, body: { detail: text } } : { kind: 'json', status, body: { detail: text }, headers };
}
