import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { activityContentSchemas, pressReport, toFieldErrors, validate, widgetContentSchemas, widgetUpdateEnvelope } from '../../src/schemas/index.js';
import { MAX_FIELD_ERRORS } from '../../src/schemas/field-errors.js';
import { WebhookMapInput } from '../../src/webhooks/map-schema.js';

const withUnknownKeys = (base: Record<string, unknown>, count: number) => ({
  ...base,
  ...Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 0])),
});
const CONFIG = { abortEarly: false, abortPipeEarly: true } as const;

describe('field errors are capped at 64, the first ones in order (docs/contract/limits-and-errors.md#field-error-cap)', () => {
  it('toFieldErrors keeps the first 64', () => {
    const { issues } = v.safeParse(
      v.array(v.string()),
      Array.from({ length: 100 }, () => 1),
      CONFIG,
    );
    const errors = toFieldErrors(issues!, ['body']);
    expect(MAX_FIELD_ERRORS).toBe(64);
    expect(errors.map((error) => error.loc)).toEqual(Array.from({ length: 64 }, (_, i) => ['body', i]));
  });

  it('6,000 unknown keys: the first 64, in document order, after the declared fields’ errors; fewer issues are made', () => {
    const input = withUnknownKeys({ content: { template: 'switchboard' }, stale_after: 'soon' }, 6000);
    const result = validate(widgetUpdateEnvelope, input, ['body']);
    if (result.success) throw new Error('expected errors');
    expect(result.errors).toHaveLength(64);
    expect(result.errors[0]).toMatchObject({ loc: ['body', 'stale_after'], type: 'int_type' });
    expect(result.errors.slice(1).map((error) => [error.loc, error.type])).toEqual(
      Array.from({ length: 63 }, (_, i) => [['body', `k${i}`], 'extra_forbidden']),
    );
    // The check stops collecting once nothing more could be shown.
    expect(v.safeParse(widgetUpdateEnvelope, input, CONFIG).issues!.length).toBeLessThanOrEqual(MAX_FIELD_ERRORS + 1);
    expect(v.safeParse(pressReport, withUnknownKeys({}, 6000), CONFIG).issues!.length).toBeLessThanOrEqual(MAX_FIELD_ERRORS + 4);
  });

  it('unknown keys are still all reported below the cap, __proto__ included', () => {
    const input = JSON.parse('{"progress":0.5,"z":0,"__proto__":1,"constructor":2,"a":3}') as unknown;
    const result = validate(activityContentSchemas.generic, input, []);
    if (result.success) throw new Error('expected errors');
    expect(result.errors.map((error) => [error.loc[0], error.type])).toEqual([
      ['z', 'extra_forbidden'],
      ['__proto__', 'extra_forbidden'],
      ['constructor', 'extra_forbidden'],
      ['a', 'extra_forbidden'],
    ]);
  });

  it('a list over its bound is one too_long error, its items unchecked', () => {
    const points = Array.from({ length: 6000 }, () => 'x');
    const { issues } = v.safeParse(widgetContentSchemas.trend, { template: 'trend', value: 1, points }, CONFIG);
    expect(toFieldErrors(issues!)).toEqual([{ loc: ['points'], msg: 'List should have at most 48 items after validation', type: 'too_long' }]);
    expect(issues).toHaveLength(1);
    // Within the bound the items are checked as before.
    const within = validate(widgetContentSchemas.trend, { template: 'trend', value: 1, points: ['x', 2] });
    expect(within.success ? [] : within.errors.map((error) => error.loc)).toEqual([['points', 0]]);
  });

  it('a record of thousands of bad entries stops after 64', () => {
    const headers = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`h${i}`, i]));
    const { issues } = v.safeParse(WebhookMapInput, { webhooks: { '*': { url: 'https://hooks.example.com/', headers } } }, CONFIG);
    expect(issues!.length).toBeLessThanOrEqual(MAX_FIELD_ERRORS);
    expect(toFieldErrors(issues!).map((error) => error.loc.at(-1))).toEqual(Array.from({ length: 64 }, (_, i) => `h${i}`));
  });
});
