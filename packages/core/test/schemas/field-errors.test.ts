import { describe, expect, it } from 'vitest';
import {
  activityContentSchemas,
  activityUpdateEnvelope,
  ProgressBar,
  toFieldErrors,
  validate,
  widgetContentSchemas,
  widgetUpdateEnvelope,
} from '../../src/schemas/index.js';
import type { FieldError } from '../../src/errors.js';
import * as v from 'valibot';

const CANARY = 'C4NARY-s3cret';
const long = (n: number) => `${CANARY}${'x'.repeat(n)}`;

/** Invalid inputs with the canary planted in the offending values (never in key names: loc names keys). */
const cases: [string, v.GenericSchema, unknown][] = [
  ['too long value', activityContentSchemas.progress, { progress: { value: 0.5 }, header_left: { value: long(200) } }],
  ['enum', activityContentSchemas.progress, { progress: { value: 0.5, color: CANARY } }],
  ['style tag', activityContentSchemas.progress, { progress: { style: CANARY, value: 0.5 } }],
  ['string for a number', activityContentSchemas.generic, { progress: CANARY }],
  ['string for an integer', activityContentSchemas.generic, { progress: 0.5, remaining_time: CANARY }],
  ['url', activityContentSchemas.generic, { progress: 0.5, tap_url: `not a url ${CANARY}` }],
  ['icon of the wrong type', activityContentSchemas.generic, { progress: 0.5, icon: [CANARY] }],
  ['value of an unknown key', activityContentSchemas.monitor, { extra: CANARY, __proto__x: { deep: CANARY } }],
  ['template', activityUpdateEnvelope, { state: CANARY, content: { template: CANARY } }],
  ['stale_after', widgetUpdateEnvelope, { content: CANARY, stale_after: CANARY }],
  ['currency pattern', widgetContentSchemas.budget, { total: { spent: 1 }, currency: CANARY }],
  ['timestamp', widgetContentSchemas.countdown, { target: CANARY }],
  ['timestamp without offset', widgetContentSchemas.countdown, { target: '2024-01-01T00:00:00' }],
  ['https url', widgetContentSchemas.switchboard, { actions: [{ id: 'a', label: 'A' }], picture: { url: `http://${CANARY}.com`, alt: CANARY.repeat(20) } }],
  [
    'duplicate ids',
    widgetContentSchemas.switchboard,
    {
      actions: [
        { id: 'CANARY', label: 'A' },
        { id: 'CANARY', label: CANARY },
      ],
    },
  ],
  ['action kind', widgetContentSchemas.switchboard, { actions: [{ id: 'a', label: 'A', kind: CANARY }] }],
  ['gauge bounds', widgetContentSchemas.gauge, { value: 1, min_value: 5, max_value: 5, label: long(64) }],
  ['not an object', ProgressBar, CANARY],
];

describe('field errors never carry the input', () => {
  it.each(cases)('%s', (_, schema, input) => {
    const result = validate(schema, input, ['body']);
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.errors.length).toBeGreaterThan(0);
    expect(JSON.stringify(result.errors)).not.toContain(CANARY);
    expect(JSON.stringify(result.errors)).not.toContain('C4NARY');
    for (const error of result.errors) expect(Object.keys(error).sort()).toEqual(['loc', 'msg', 'type']);
  });
});

describe('toFieldErrors', () => {
  it('prefixes loc and keeps one error per loc', () => {
    const schema = v.object({ n: v.pipe(v.number(), v.minValue(10), v.maxValue(5)) });
    const result = v.safeParse(schema, { n: 7 }, { abortEarly: false });
    expect(result.success).toBe(false);
    const errors: FieldError[] = toFieldErrors(result.issues!, ['body', 'content']);
    expect(errors).toEqual([{ loc: ['body', 'content', 'n'], msg: 'Input should be greater than or equal to 10', type: 'greater_than_equal' }]);
  });

  it('maps the basic type errors like pydantic', () => {
    const schema = v.strictObject({ s: v.string(), n: v.number(), b: v.boolean(), o: v.strictObject({}), l: v.array(v.string()) });
    const result = v.safeParse(schema, { s: 1, n: 'x', b: 'true', o: 1, l: {} }, { abortEarly: false });
    expect(toFieldErrors(result.issues!)).toEqual([
      { loc: ['s'], msg: 'Input should be a valid string', type: 'string_type' },
      { loc: ['n'], msg: 'Input should be a valid number', type: 'float_type' },
      { loc: ['b'], msg: 'Input should be a valid boolean', type: 'bool_type' },
      { loc: ['o'], msg: 'Input should be a valid dictionary', type: 'dict_type' },
      { loc: ['l'], msg: 'Input should be a valid list', type: 'list_type' },
    ]);
  });

  it('words singular bounds', () => {
    const schema = v.object({ s: v.pipe(v.string(), v.minLength(1)), l: v.pipe(v.array(v.number()), v.minLength(1)) });
    const result = v.safeParse(schema, { s: '', l: [] }, { abortEarly: false });
    expect(toFieldErrors(result.issues!).map((error) => error.msg)).toEqual([
      'String should have at least 1 character',
      'List should have at least 1 item after validation',
    ]);
  });

  it('reports a pattern with its source', () => {
    const result = validate(widgetContentSchemas.budget, { total: { spent: 1 }, currency: 'eu' });
    expect(result).toEqual({
      success: false,
      errors: [{ loc: ['currency'], msg: "String should match pattern '^[A-Z]{3}$'", type: 'string_pattern_mismatch' }],
    });
  });
});
