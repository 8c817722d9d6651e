import { describe, expect, it } from 'vitest';
import { parseRetryAfter, retryDelay, isTransient } from '../../src/webhooks/retry-policy.js';
import { fillTemplate, fillText, hasOnlyKnownPlaceholders, placeholderValues, templateHasOnlyKnownPlaceholders } from '../../src/webhooks/template.js';
import { redactUrl } from '../../src/webhooks/redact.js';

const envelope = {
  id: '0b7c5a4e-8f1d-5c2b-9e3a-1d2f3a4b5c6d',
  request_id: 'r-"1"\\\n\u2028{{action}}',
  type: 'widget.action.v1',
  subject: { kind: 'widget', slug: 'lights' },
  occurred_at: '2026-11-22T12:00:00.000Z',
  expires_at: '2026-11-22T12:00:05.000Z',
  data: { action: 'hall', kind: 'toggle', value: true },
};
const values = placeholderValues(envelope, envelope);

describe('placeholders', () => {
  it('fills every placeholder of the table as text', () => {
    expect(fillText('{{action}}|{{kind}}|{{value}}|{{slug}}|{{subject}}|{{event_id}}', values)).toBe(`hall|toggle|true|lights|widget/lights|${envelope.id}`);
    expect(fillText('{{event_json}}', values)).toBe(JSON.stringify(envelope));
    const button = placeholderValues({ ...envelope, data: { action: 'bell', kind: 'button' } }, envelope);
    expect(button.value).toBe('');
  });

  it('inside a body: JSON-escaped strings, never booleans, never expanded twice; keys kept', () => {
    const template = { on: '{{value}}', id: '{{request_id}}', nested: ['{{event_json}}', 3, null, true], '{{action}}': 'x' };
    const json = JSON.stringify(fillTemplate(template, values));
    const back = JSON.parse(json);
    expect(back.on).toBe('true');
    expect(back.id).toBe(envelope.request_id); // quotes, backslash, newline, U+2028 and a literal {{action}} survive
    expect(back.id).toContain('{{action}}');
    expect(JSON.parse(back.nested[0])).toEqual(envelope);
    expect(back.nested.slice(1)).toEqual([3, null, true]);
    expect(back).toHaveProperty('{{action}}', 'x');
  });

  it('tells known from unknown placeholders', () => {
    expect(hasOnlyKnownPlaceholders('https://x.example/{{action}}?v={{value}}')).toBe(true);
    expect(hasOnlyKnownPlaceholders('{{ action }}')).toBe(false);
    expect(hasOnlyKnownPlaceholders('{{token}}')).toBe(false);
    expect(hasOnlyKnownPlaceholders('{ {action} } {{}')).toBe(true);
    expect(templateHasOnlyKnownPlaceholders({ a: [{ b: '{{secret}}' }] })).toBe(false);
    expect(templateHasOnlyKnownPlaceholders({ a: [{ b: '{{slug}}' }], '{{unknown}}': 1 })).toBe(true);
  });
});

describe('redactUrl', () => {
  it.each([
    ['https://h.example/p/{{action}}', 'https://h.example/p/{{action}}'],
    ['https://h.example/p?token=abc&x=1', 'https://h.example/p?token=***&x=***'],
    ['https://h.example/p?abc&x=', 'https://h.example/p?***&x=***'],
    ['https://h.example/p?a=1#frag', 'https://h.example/p?a=***#***'],
    ['https://h.example/?', 'https://h.example/?'],
  ])('%s → %s', (url, redacted) => {
    expect(redactUrl(url)).toBe(redacted);
  });
});

describe('retry policy', () => {
  const response = (status: number, retryAfter: string | null = null) => ({ kind: 'response' as const, status, retryAfter });
  it('retries exactly the transient failures', () => {
    const transient = [408, 425, 429, 500, 502, 503, 504, 507, 599];
    const final = [200, 301, 302, 303, 307, 308, 400, 401, 403, 404, 409, 422, 501, 505];
    for (const status of transient) expect(isTransient(response(status)), String(status)).toBe(true);
    for (const status of final) expect(isTransient(response(status)), String(status)).toBe(false);
    expect(isTransient({ kind: 'timeout' })).toBe(true);
    expect(isTransient({ kind: 'network', code: 'ECONNRESET' })).toBe(true);
    expect(isTransient({ kind: 'blocked' })).toBe(false);
  });

  it('Retry-After: seconds, HTTP date, garbage', () => {
    const now = Date.UTC(2026, 10, 22, 12, 0, 0);
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter(new Date(now + 3000).toUTCString(), now)).toBe(3000);
    expect(parseRetryAfter(new Date(now - 3000).toUTCString(), now)).toBe(0);
    for (const bad of ['soon', '-1', '1.5', '', 'Monday', null]) expect(parseRetryAfter(bad, now), String(bad)).toBeNull();
  });

  it('a retry starts only when the wait and a whole attempt fit before expiry', () => {
    const now = 1_000_000;
    expect(retryDelay(response(503), 1, now, now + 2000)).toBe(0);
    expect(retryDelay(response(503), 1, now, now + 1999)).toBeNull();
    expect(retryDelay(response(503), 2, now, now + 5000)).toBeNull();
    expect(retryDelay(response(429, '1'), 1, now, now + 3000)).toBe(1000);
    expect(retryDelay(response(429, '2'), 1, now, now + 3000)).toBeNull();
    expect(retryDelay(response(503, 'garbage'), 1, now, now + 3000)).toBe(0);
    // Retry-After only counts on 429 and 503.
    expect(retryDelay(response(502, '10'), 1, now, now + 3000)).toBe(0);
    expect(retryDelay(response(400), 1, now, now + 5000)).toBeNull();
    expect(retryDelay({ kind: 'blocked' }, 1, now, now + 5000)).toBeNull();
  });
});
