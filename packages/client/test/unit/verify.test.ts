import { describe, expect, it } from 'vitest';
import { signatureHeader } from '../../../core/src/webhooks/signing.js';
import { verifyWebhook, WebhookVerificationError } from '../../src/index.js';

describe('verifyWebhook from the client', () => {
  const parts = { timestamp: 1_800_000_000, method: 'POST', url: 'https://hooks.example.com/x?y=1', body: '{"id":"e1"}', eventId: 'e1' };
  const headers = { 'x-svc-timestamp': String(parts.timestamp), 'x-svc-signature': signatureHeader('s3cret', parts), 'idempotency-key': 'e1' };

  it('accepts what the service signed', async () => {
    await expect(verifyWebhook({ secret: 's3cret', headers, method: 'POST', url: parts.url, body: parts.body, now: parts.timestamp * 1000 })).resolves.toEqual({
      eventId: 'e1',
      timestamp: parts.timestamp,
    });
  });

  it('refuses a tampered body', async () => {
    await expect(
      verifyWebhook({ secret: 's3cret', headers, method: 'POST', url: parts.url, body: '{"id":"e2"}', now: parts.timestamp * 1000 }),
    ).rejects.toBeInstanceOf(WebhookVerificationError);
  });
});
