/** `@tilecast/client`: publish to Tilecast, consume its events, confirm presses. */
export { createClient } from './client.js';
export type {
  ActivityEcho,
  ActivityHandle,
  ActivityUpdate,
  ClientOptions,
  TilecastClient,
  WidgetEcho,
  WidgetHandle,
  WidgetUpdate,
} from './client.js';
export type * from './content.js';
export { isTilecastApiError, TilecastApiError } from './errors.js';
export type { FieldError } from './errors.js';
export { isWidgetAction } from './events.js';
export type { EventsOptions, TilecastEvent, WidgetActionData, WidgetActionEvent } from './events.js';
export type { Fetch } from './http.js';
export { backoffDelay, systemTiming } from './timing.js';
export type { BackoffOptions, Timing } from './timing.js';
export type * from './webhooks.js';
/** The event-stream parser the client reads with, for code that reads a stream itself (also `@tilecast/client/sse`). */
export { SSE_MAX_LINE, SseLineTooLongError, SseParser } from './sse.js';
export type { SseHandlers, SseMessage } from './sse.js';

/**
 * The receiver side of webhook signing (WebCrypto only): the core's verifier, through its
 * browser-safe entry `@tilecast/core/verify`, which loads nothing else of the core.
 */
export { verifyWebhook, WebhookVerificationError } from '@tilecast/core/verify';
export type { VerifiedWebhook, VerifyWebhookOptions, WebhookHeaders, WebhookVerificationReason } from '@tilecast/core/verify';
