import type { PushReport } from '../device-transport.js';
import type { PushAnswer } from './connection.js';

/**
 * The report of a push given up (a dead letter's reason: docs/contract/durable-delivery.md#durable-dead-letters):
 * `why` it was, with what the service answered when it answered (its reason, e.g. APNs's
 * `BadTopic` or FCM's `INVALID_ARGUMENT`, else its status). The outcome is not repeated (the
 * dead letter puts it first: `refused: BadTopic`, `dropped: retries used up: status 503`).
 * Never a token.
 */
export function givenUp(outcome: 'refused' | 'dropped', why: string, answer?: PushAnswer): PushReport {
  const told = answer?.kind === 'answer' ? (answer.reason ?? `status ${answer.status}`) : null;
  if (told === null) return { outcome, reason: why };
  return { outcome, reason: why === outcome ? told : `${why}: ${told}` };
}

/** `429`, `5xx`, a lost stream and a timeout may go through on another attempt. */
export const isRetryable = (answer: PushAnswer): boolean => answer.kind !== 'answer' || answer.status === 429 || answer.status >= 500;

/** What the logs say about a failed attempt. */
export function answerFields(answer: PushAnswer): Record<string, unknown> {
  switch (answer.kind) {
    case 'answer':
      return { status: answer.status, reason: answer.reason };
    case 'network':
      return { error: answer.error };
    default:
      return { error: answer.kind };
  }
}
