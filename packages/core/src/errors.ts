/**
 * Every refusal the service can give, as a typed value. Services throw a
 * `TilecastError` carrying one of these; `http/error-response.ts` is the one place
 * that turns them into statuses and bodies.
 */

/** One item of a FastAPI-style `{detail: [...]}` body. Never carries the offending input. */
export interface FieldError {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export type ServiceError =
  // `scheme`: the one the refused request had to use, named in its `WWW-Authenticate`
  // (publishers' `Token` when absent, devices' `Device`).
  | { kind: 'unauthorized'; scheme?: 'Device' }
  | { kind: 'subscription_required' }
  | { kind: 'activity_not_found' }
  | { kind: 'widget_not_found' }
  | { kind: 'template_mismatch' }
  | { kind: 'validation'; errors: FieldError[] }
  | { kind: 'too_many_ongoing_activities' }
  | { kind: 'invalid_widget_content' }
  | { kind: 'payload_too_large' }
  | { kind: 'unsupported_media_type' }
  | { kind: 'too_many_event_streams' }
  | { kind: 'too_many_device_streams' }
  | { kind: 'invalid_subject_filter'; value: string }
  | { kind: 'too_many_presses' }
  | { kind: 'route_not_found' }
  | { kind: 'method_not_allowed'; allow: string[] }
  // Refusals of Node's HTTP parser (the adapters' `clientError` handling), and a client
  // that went away before its body was read (logged as an abort; nobody reads the answer).
  | { kind: 'bad_request' }
  | { kind: 'request_header_fields_too_large' }
  | { kind: 'request_timeout' }
  | { kind: 'expectation_failed' }
  | { kind: 'request_aborted' }
  | { kind: 'storage_unavailable' };

/**
 * The device API's `401`: its `WWW-Authenticate` names the device scheme
 * (docs/contract/publisher-api.md#auth-401-challenge).
 */
export const DEVICE_UNAUTHORIZED: ServiceError = Object.freeze({ kind: 'unauthorized', scheme: 'Device' });

export class TilecastError extends Error {
  constructor(readonly error: ServiceError) {
    super(error.kind);
    this.name = 'TilecastError';
  }
}

/** Shorthand for throwing a typed refusal. */
export function fail(error: ServiceError): never {
  throw new TilecastError(error);
}

export function isTilecastError(value: unknown): value is TilecastError {
  return value instanceof TilecastError;
}

const UNAVAILABLE = Symbol.for('@tilecast/core:storage-unavailable');

/**
 * What a store throws when it cannot answer right now: it is unreachable, refuses
 * connections, is shutting down, or missed a deadline (connecting, acquiring a connection,
 * running a statement). Requests then get `503 {"detail": "Service Unavailable"}` and
 * `GET /events` the temporary-outage stream. Any other error stays a `500`: a bug must
 * stay visible. Store authors throw this (with the original error as `cause`) only for
 * failures that go away by themselves when the store answers again.
 */
export class StorageUnavailableError extends Error {
  /** Recognised by `isStorageUnavailable` even across two copies of this package. */
  readonly [UNAVAILABLE] = true;

  /** True when the store gave up waiting (a statement, a connection): what metrics count as a deadline hit. */
  readonly deadline: boolean;

  constructor(message = 'storage unavailable', options?: { cause?: unknown; deadline?: boolean }) {
    super(message, options);
    this.name = 'StorageUnavailableError';
    this.deadline = options?.deadline ?? false;
  }
}

export function isStorageUnavailable(value: unknown): value is StorageUnavailableError {
  return typeof value === 'object' && value !== null && (value as { [UNAVAILABLE]?: unknown })[UNAVAILABLE] === true;
}

/** The refusal for a body that is not JSON (docs/contract/limits-and-errors.md#json-invalid): a 422 array error, never a 500. */
export function jsonDecodeError(): ServiceError {
  return { kind: 'validation', errors: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] };
}
