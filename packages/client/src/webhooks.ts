/** Shapes of the widget webhook map endpoints (docs/contract/events-and-webhooks.md#webhook-map-put, docs/contract/events-and-webhooks.md#webhook-map-get,
 * docs/contract/events-and-webhooks.md#webhook-map-delete, docs/contract/events-and-webhooks.md#webhook-map-response). */

export type WebhookMethod = 'POST' | 'PUT' | 'PATCH' | 'GET';

/** One entry as sent. `url`, `body` strings may hold placeholders such as `{{action}}`. */
export interface WebhookEntry {
  /** `https://` only, port 443. */
  url: string;
  /** Default `POST`; `GET` sends no body. */
  method?: WebhookMethod | null;
  /** Extra request headers (at most 1 KiB in total). */
  headers?: Record<string, string> | null;
  /** JSON template (at most 2 KiB). Omitted or null: the event envelope is the body. */
  body?: unknown;
  /** Turns on request signing (`X-Svc-Signature`). Never returned. */
  secret?: string | null;
}

/** `PUT` body: keys are action ids, plus `*` for the default entry; at most 9 entries. */
export interface WebhookMapInput {
  webhooks: Record<string, WebhookEntry>;
}

/** One entry as returned: redacted (header and query values `***`, no secret). */
export interface WebhookStatus {
  config: {
    url: string;
    method: WebhookMethod;
    headers: Record<string, string>;
    body: unknown;
  };
  /** ISO 8601 timestamp of the last successful delivery, or null. */
  last_success_at: string | null;
  last_failure_at: string | null;
}

export interface WebhookMap {
  webhooks: Record<string, WebhookStatus>;
}
