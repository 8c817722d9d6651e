/** Header names of a webhook request (docs/contract/events-and-webhooks.md#webhook-request-headers, docs/contract/events-and-webhooks.md#webhook-signing). Dependency-free, shared by signer and verifier. */
export const TIMESTAMP_HEADER = 'X-Svc-Timestamp';
export const SIGNATURE_HEADER = 'X-Svc-Signature';
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
