/**
 * Server-sent-events framing. Data is always one line of JSON (JSON.stringify escapes
 * CR and LF), so no payload can end a field or forge another one.
 */

/** The reconnection delay every stream opens with (docs/contract/events-and-webhooks.md#sse-opening: `retry: 1000`). */
export const SSE_RETRY_MS = 1000;

export const sseRetry = (ms: number = SSE_RETRY_MS): string => `retry: ${ms}\n`;

export const ssePing = ': ping\n\n';

/** One event: optional `event:` name, optional `id:`, one `data:` line of JSON. */
export function sseEvent(fields: { id?: string; event?: string; data: unknown }): string {
  let text = '';
  if (fields.event !== undefined) text += `event: ${fields.event}\n`;
  if (fields.id !== undefined) text += `id: ${fields.id}\n`;
  return `${text}data: ${JSON.stringify(fields.data)}\n\n`;
}
