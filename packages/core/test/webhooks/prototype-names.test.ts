/**
 * `__proto__`, `constructor` and `prototype` are valid action ids and header names: the
 * webhook map keeps them like any other name (docs/contract/events-and-webhooks.md#webhook-prototype-names), from the request
 * through storage and back.
 */
import { describe, expect, it } from 'vitest';
import { validate } from '../../src/schemas/index.js';
import { WebhookMapInput } from '../../src/webhooks/map-schema.js';
import { redactMap } from '../../src/webhooks/redact.js';
import { entryFor, readStoredMap } from '../../src/webhooks/stored-map.js';

const NAMES = ['__proto__', 'constructor', 'prototype'] as const;

/** JSON text as a client sends it: `__proto__` is a plain key only when it comes from JSON.parse. */
const BODY = `{"webhooks":{
  "__proto__":{"url":"https://hooks.example.com/proto","headers":{"__proto__":"p","constructor":"c","prototype":"t"}},
  "constructor":{"url":"https://hooks.example.com/constructor","headers":{"__proto__":"own"}},
  "prototype":{"url":"https://hooks.example.com/prototype"},
  "*":{"url":"https://hooks.example.com/any"}}}`;

function ownKeys(value: unknown): string[] {
  return Object.keys(value as object);
}

describe('webhook map keys and header names named after Object.prototype members', () => {
  it('are validated, kept as own properties and in order; nothing reaches a prototype', () => {
    const result = validate(WebhookMapInput, JSON.parse(BODY), ['body']);
    if (!result.success) throw new Error(JSON.stringify(result.errors));
    const { webhooks } = result.output;
    expect(ownKeys(webhooks)).toEqual(['__proto__', 'constructor', 'prototype', '*']);
    expect(Object.getPrototypeOf(webhooks)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(webhooks, '__proto__')?.value).toMatchObject({ url: 'https://hooks.example.com/proto', method: 'POST' });
    const headers = Object.getOwnPropertyDescriptor(webhooks, '__proto__')!.value.headers;
    expect(ownKeys(headers)).toEqual(['__proto__', 'constructor', 'prototype']);
    expect(Object.getPrototypeOf(headers)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(headers, '__proto__')?.value).toBe('p');
    expect(webhooks.constructor).toMatchObject({ url: 'https://hooks.example.com/constructor' });
    expect(({} as Record<string, unknown>).url).toBeUndefined();
  });

  it('survive JSON (what both stores keep) and are read back and found for delivery', () => {
    const result = validate(WebhookMapInput, JSON.parse(BODY), ['body']);
    if (!result.success) throw new Error('invalid');
    const stored = JSON.parse(JSON.stringify(result.output.webhooks)) as Record<string, unknown>;
    expect(ownKeys(stored)).toEqual(['__proto__', 'constructor', 'prototype', '*']);
    const read = readStoredMap(stored);
    expect(ownKeys(read)).toEqual(['__proto__', 'constructor', 'prototype', '*']);
    for (const name of NAMES) expect(entryFor(stored, name)?.key).toBe(name);
    expect(ownKeys(entryFor(stored, '__proto__')!.entry.headers)).toEqual(['__proto__', 'constructor', 'prototype']);
    expect(entryFor(stored, 'constructor')!.entry.headers).toEqual(JSON.parse('{"__proto__":"own"}'));
    const redacted = redactMap(read, {});
    expect(JSON.stringify(redacted)).toBe(
      JSON.stringify({
        webhooks: JSON.parse(
          '{"__proto__":{"config":{"url":"https://hooks.example.com/proto","method":"POST","headers":{"__proto__":"***","constructor":"***","prototype":"***"},"body":null},"last_success_at":null,"last_failure_at":null},' +
            '"constructor":{"config":{"url":"https://hooks.example.com/constructor","method":"POST","headers":{"__proto__":"***"},"body":null},"last_success_at":null,"last_failure_at":null},' +
            '"prototype":{"config":{"url":"https://hooks.example.com/prototype","method":"POST","headers":{},"body":null},"last_success_at":null,"last_failure_at":null},' +
            '"*":{"config":{"url":"https://hooks.example.com/any","method":"POST","headers":{},"body":null},"last_success_at":null,"last_failure_at":null}}',
        ),
      }),
    );
  });

  it("an error inside such an entry is reported at the entry's own loc, with the nested error's type", () => {
    const body = JSON.parse('{"webhooks":{"__proto__":{"url":"http://x.example/"},"constructor":{"url":5,"headers":{"__proto__":"a\\nb"}}}}');
    const result = validate(WebhookMapInput, body, ['body']);
    if (result.success) throw new Error('expected errors');
    expect(result.errors.map((error) => [error.loc, error.type])).toEqual([
      [['body', 'webhooks', '__proto__', 'url'], 'url_scheme'],
      [['body', 'webhooks', 'constructor', 'url'], 'string_type'],
      [['body', 'webhooks', 'constructor', 'headers', '__proto__'], 'value_error'],
    ]);
  });
});
