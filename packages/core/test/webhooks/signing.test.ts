import { describe, expect, it } from 'vitest';
import { signatureHeader, signedString } from '../../src/webhooks/signing.js';
import { verifyWebhook, WebhookVerificationError, type VerifyWebhookOptions } from '../../src/webhooks/verify.js';

/**
 * The known-answer vector published in docs/webhooks.md. The expected values were computed
 * independently with `openssl dgst -sha256 -hmac`, not with this code.
 */
const KAT = {
  secret: 'whsec_test_secret',
  timestamp: 1763812800,
  method: 'POST',
  url: 'https://hooks.example.com/tilecast?x=1',
  body: '{"action":"hall","value":true}',
  eventId: '6f1c1a8e-2d4b-5b7e-9a1c-3e5f7a9b0c2d',
  bodySha256: '209fd6006faffa14978b697b17bf4f7a155e839148dd1585b9d203f01b89fced',
  signature: 'v1=35e954d3f320a40bdd7fcae96ddd801d3b0aaf656c0189c3eff8305866e49255',
  getSignature: 'v1=3783dd5f9dbd17bbdcc2c36c90f2930a167e6efd8d917e7589b23dd9e7263483',
};

const parts = { timestamp: KAT.timestamp, method: KAT.method, url: KAT.url, body: KAT.body, eventId: KAT.eventId };

function valid(overrides: Partial<VerifyWebhookOptions> = {}): VerifyWebhookOptions {
  return {
    secret: KAT.secret,
    method: 'POST',
    url: KAT.url,
    body: KAT.body,
    headers: { 'X-Svc-Timestamp': String(KAT.timestamp), 'X-Svc-Signature': KAT.signature, 'Idempotency-Key': KAT.eventId },
    now: KAT.timestamp * 1000,
    ...overrides,
  };
}

async function reason(options: VerifyWebhookOptions): Promise<string> {
  try {
    await verifyWebhook(options);
    return 'accepted';
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return (error as WebhookVerificationError).reason;
  }
}

describe('signing: known-answer vector', () => {
  it('builds the signed string and the signature header', () => {
    expect(signedString(parts)).toBe(`${KAT.timestamp}.POST.${KAT.url}.${KAT.bodySha256}.${KAT.eventId}`);
    expect(signatureHeader(KAT.secret, parts)).toBe(KAT.signature);
  });

  it('signs a GET with the SHA-256 of zero bytes', () => {
    const get = { ...parts, method: 'get', body: '' };
    expect(signedString(get)).toBe(`${KAT.timestamp}.GET.${KAT.url}.e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855.${KAT.eventId}`);
    expect(signatureHeader(KAT.secret, get)).toBe(KAT.getSignature);
  });

  it('the verifier accepts the vector (string, bytes, Headers object, GET)', async () => {
    await expect(verifyWebhook(valid())).resolves.toEqual({ eventId: KAT.eventId, timestamp: KAT.timestamp });
    await expect(verifyWebhook(valid({ body: new TextEncoder().encode(KAT.body) }))).resolves.toBeTruthy();
    const headers = new Headers({ 'x-svc-timestamp': String(KAT.timestamp), 'x-svc-signature': KAT.signature, 'idempotency-key': KAT.eventId });
    await expect(verifyWebhook(valid({ headers }))).resolves.toBeTruthy();
    const getHeaders = { 'x-svc-timestamp': String(KAT.timestamp), 'x-svc-signature': KAT.getSignature, 'idempotency-key': KAT.eventId };
    await expect(verifyWebhook(valid({ method: 'GET', body: null, headers: getHeaders }))).resolves.toBeTruthy();
  });
});

describe('verifyWebhook refuses one broken thing at a time', () => {
  const headers = (patch: Record<string, string | undefined>) => {
    const base: Record<string, string | undefined> = {
      'x-svc-timestamp': String(KAT.timestamp),
      'x-svc-signature': KAT.signature,
      'idempotency-key': KAT.eventId,
    };
    return { ...base, ...patch };
  };

  it('timestamps: within tolerance both ways, then too old / too new', async () => {
    expect(await reason(valid({ now: (KAT.timestamp + 300) * 1000 }))).toBe('accepted');
    expect(await reason(valid({ now: (KAT.timestamp - 300) * 1000 }))).toBe('accepted');
    expect(await reason(valid({ now: (KAT.timestamp + 301) * 1000 }))).toBe('timestamp_too_old');
    expect(await reason(valid({ now: (KAT.timestamp - 301) * 1000 }))).toBe('timestamp_too_new');
    expect(await reason(valid({ now: (KAT.timestamp + 30) * 1000, toleranceSec: 10 }))).toBe('timestamp_too_old');
  });

  it('tampered body, other method, other URL, other event id, wrong secret', async () => {
    expect(await reason(valid({ body: KAT.body.replace('true', 'false') }))).toBe('signature_mismatch');
    expect(await reason(valid({ method: 'PUT' }))).toBe('signature_mismatch');
    expect(await reason(valid({ url: KAT.url + '&y=2' }))).toBe('signature_mismatch');
    expect(await reason(valid({ headers: headers({ 'idempotency-key': 'another-id' }) }))).toBe('signature_mismatch');
    expect(await reason(valid({ secret: 'whsec_other' }))).toBe('signature_mismatch');
  });

  it('a signature of another timestamp does not verify', async () => {
    expect(await reason(valid({ headers: headers({ 'x-svc-timestamp': String(KAT.timestamp + 1) }) }))).toBe('signature_mismatch');
  });

  it('missing or malformed headers, without throwing anything but the typed error', async () => {
    expect(await reason(valid({ headers: headers({ 'x-svc-timestamp': undefined }) }))).toBe('missing_timestamp');
    expect(await reason(valid({ headers: headers({ 'x-svc-signature': undefined }) }))).toBe('missing_signature');
    expect(await reason(valid({ headers: headers({ 'idempotency-key': undefined }) }))).toBe('missing_event_id');
    for (const bad of ['1763812800.5', '-1', 'abc', '', ' 1763812800']) {
      expect(await reason(valid({ headers: headers({ 'x-svc-timestamp': bad }) })), bad).toBe('malformed_timestamp');
    }
    for (const bad of [
      '',
      'v1=',
      'v1=abc',
      KAT.signature.slice(0, -2),
      KAT.signature + '00',
      'v2=' + KAT.signature.slice(3),
      KAT.signature.replace('v1=', 'v1:'),
      'v1=' + 'zz'.repeat(32),
    ]) {
      expect(await reason(valid({ headers: headers({ 'x-svc-signature': bad }) })), bad).toBe('malformed_signature');
    }
  });

  it('accepts any listed v1 entry (secret rotation) and ignores unknown versions beside one', async () => {
    const other = signatureHeader('whsec_old', parts);
    expect(await reason(valid({ headers: headers({ 'x-svc-signature': `${other} ${KAT.signature}` }) }))).toBe('accepted');
    expect(await reason(valid({ headers: headers({ 'x-svc-signature': `v0=abc,${KAT.signature}` }) }))).toBe('accepted');
    expect(await reason(valid({ headers: headers({ 'x-svc-signature': other }) }))).toBe('signature_mismatch');
  });

  it('never puts the secret or the signature in the error message', async () => {
    try {
      await verifyWebhook(valid({ secret: 'CANARY-secret-1' }));
    } catch (error) {
      expect(String((error as Error).message)).not.toContain('CANARY');
      expect(String((error as Error).message)).not.toContain(KAT.signature.slice(3));
    }
  });
});

describe('verify.ts stays portable', () => {
  it('imports nothing but the dependency-free header names', async () => {
    const { readFile } = await import('node:fs/promises');
    const source = await readFile(new URL('../../src/webhooks/verify.ts', import.meta.url), 'utf8');
    const imports = [...source.matchAll(/^import .* from '([^']+)';$/gm)].map((match) => match[1]);
    expect(imports).toEqual(['./header-names.js']);
    const names = await readFile(new URL('../../src/webhooks/header-names.ts', import.meta.url), 'utf8');
    expect(names).not.toMatch(/^import /m);
  });
});
