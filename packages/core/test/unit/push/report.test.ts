import { describe, expect, it } from 'vitest';
import type { PushAnswer } from '../../../src/transport/push/connection.js';
import { answerFields, givenUp, isRetryable } from '../../../src/transport/push/report.js';
import { outcomeOf, reasonOf } from '../../../src/transport/observed-transport.js';

const answer = (status: number, reason: string | null = null): PushAnswer => ({ kind: 'answer', status, reason, retryAfter: null });

describe('givenUp: the reason of a push given up (docs/contract/durable-delivery.md#durable-dead-letters)', () => {
  it('is the service’s reason for a refusal, why it was given up otherwise, with the answer after it', () => {
    expect(givenUp('refused', 'refused', answer(400, 'BadTopic'))).toEqual({ outcome: 'refused', reason: 'BadTopic' });
    expect(givenUp('refused', 'refused', answer(403, 'SENDER_ID_MISMATCH'))).toEqual({ outcome: 'refused', reason: 'SENDER_ID_MISMATCH' });
    expect(givenUp('dropped', 'retries used up', answer(503))).toEqual({ outcome: 'dropped', reason: 'retries used up: status 503' });
    expect(givenUp('dropped', 'expired', answer(429, 'QUOTA_EXCEEDED'))).toEqual({ outcome: 'dropped', reason: 'expired: QUOTA_EXCEEDED' });
    expect(givenUp('dropped', 'retries used up', { kind: 'timeout' })).toEqual({ outcome: 'dropped', reason: 'retries used up' });
    expect(givenUp('dropped', 'transport closed')).toEqual({ outcome: 'dropped', reason: 'transport closed' });
  });

  it('is read back by the core as the transport told it', () => {
    const report = givenUp('refused', 'access token refused', answer(401, 'UNAUTHENTICATED'));
    expect(outcomeOf(report)).toBe('refused');
    expect(reasonOf(report)).toBe('access token refused: UNAUTHENTICATED');
  });
});

describe('isRetryable and answerFields', () => {
  it('retries 429, 5xx, lost streams and timeouts, never another 4xx', () => {
    expect([429, 500, 503].map((status) => isRetryable(answer(status)))).toEqual([true, true, true]);
    expect([400, 403, 404, 410].map((status) => isRetryable(answer(status)))).toEqual([false, false, false, false]);
    expect(isRetryable({ kind: 'network', error: 'reset' })).toBe(true);
    expect(isRetryable({ kind: 'timeout' })).toBe(true);
  });

  it('logs the status and reason, or the error', () => {
    expect(answerFields(answer(400, 'BadTopic'))).toEqual({ status: 400, reason: 'BadTopic' });
    expect(answerFields({ kind: 'network', error: 'reset' })).toEqual({ error: 'reset' });
    expect(answerFields({ kind: 'timeout' })).toEqual({ error: 'timeout' });
  });
});
