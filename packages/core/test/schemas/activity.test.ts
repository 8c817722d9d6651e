import { describe, expect, it } from 'vitest';
import { activityContentSchemas, activityDataEchoSchema, activityDataSchema, activityEchoSchemas, validate, withIconV2 } from '../../src/schemas/index.js';
import { expectOnlyError, fractionBound, outputOf, s, schemaTable, stringBound, type BoundCase } from './helpers.js';

/** Rows every activity template shares. */
const commonBounds = (template: string): BoundCase[] => [
  {
    path: ['template'],
    ok: [template],
    bad: [
      ['other', 'literal_error'],
      [null, 'literal_error'],
    ],
  },
  stringBound(['icon'], 64, 0, 'icon_type'),
  { path: ['icon'], ok: [null, { name: 'bolt' }], bad: [[7, 'icon_type']] },
  {
    path: ['tap_url'],
    ok: [null, 'https://example.com'],
    bad: [
      ['', 'string_too_short'],
      ['nope', 'url_parsing'],
    ],
  },
];

const valueBound = (path: string): BoundCase => ({
  path: [path],
  ok: [null, { value: s(128), text_color: 'red', formatter: 'time_until' }],
  bad: [['42', 'dict_type']],
});

schemaTable('activity template progress', activityContentSchemas.progress, {
  base: { progress: { value: 0.5 } },
  required: [['progress'], ['progress', 'value']],
  bounds: [
    ...commonBounds('progress'),
    fractionBound(['progress', 'value']),
    ...['header_left', 'header_right', 'footer_left', 'footer_right', 'compact_value'].map(valueBound),
    { path: ['header_left'], ok: [{ value: s(128) }], bad: [[{ value: s(129) }, 'string_too_long']], errorLoc: ['header_left', 'value'] },
  ],
});

schemaTable('activity template monitor', activityContentSchemas.monitor, {
  base: {},
  required: [],
  bounds: [
    ...commonBounds('monitor'),
    {
      path: ['primary_column'],
      ok: ['left', 'right'],
      bad: [
        ['middle', 'enum'],
        [null, 'enum'],
      ],
    },
    {
      path: ['left_column'],
      ok: [null, { value: { value: '1' }, header: s(64), footer: s(64) }],
      bad: [[{ header: 'x' }, 'missing']],
      errorLoc: ['left_column', 'value'],
    },
    { path: ['right_column'], ok: [null], bad: [[{ value: { value: '1' }, footer: s(65) }, 'string_too_long']], errorLoc: ['right_column', 'footer'] },
  ],
});

schemaTable('activity template generic', activityContentSchemas.generic, {
  base: { progress: 0.5 },
  required: [['progress']],
  bounds: [
    ...commonBounds('generic'),
    fractionBound(['progress']),
    {
      path: ['remaining_time'],
      ok: [0, 3600, 60.0, null],
      bad: [
        [-1, 'greater_than_equal'],
        ['60', 'int_type'],
        [1.5, 'int_type'],
        [-0, 'int_type'],
        [2 ** 53, 'int_type'],
      ],
    },
    stringBound(['state'], 32),
    { path: ['state'], ok: [null] },
  ],
});

describe('activity echo', () => {
  it.each([
    [
      'progress',
      { progress: { value: 0.5 } },
      {
        template: 'progress',
        tap_url: null,
        icon: null,
        progress: { style: 'simple', value: 0.5, color: 'blue' },
        header_left: null,
        header_right: null,
        footer_left: null,
        footer_right: null,
        compact_value: null,
      },
    ],
    [
      'monitor',
      {},
      {
        template: 'monitor',
        tap_url: null,
        icon: null,
        left_column: null,
        right_column: null,
        primary_column: 'right',
      },
    ],
    [
      'generic',
      { progress: 1 },
      {
        template: 'generic',
        tap_url: null,
        icon: null,
        progress: 1,
        remaining_time: null,
        state: null,
      },
    ],
  ] as const)('%s: defaults applied, every optional field present (null where unset)', (template, input, expected) => {
    expect(outputOf(activityContentSchemas[template], input)).toEqual(expected);
  });

  it('fills nested defaults and nulls', () => {
    const output = outputOf(activityContentSchemas.monitor, { left_column: { value: { value: '3' } } });
    expect(output).toMatchObject({ left_column: { header: null, value: { value: '3', text_color: null, formatter: null }, footer: null } });
  });

  it('icon_v2 normalises a string icon to an Icon object, next to icon', () => {
    const stored = outputOf(activityContentSchemas.generic, { progress: 0.1, icon: 'bolt' }) as Record<string, unknown>;
    const echoed = withIconV2(stored);
    expect(echoed.icon_v2).toEqual({
      name: 'bolt',
      rendering_mode: null,
      primary_color: null,
      secondary_color: null,
      tertiary_color: null,
      color_rendering: null,
    });
    expect(Object.keys(echoed)).toEqual(['template', 'tap_url', 'icon', 'icon_v2', 'progress', 'remaining_time', 'state']);
  });

  it('icon_v2 is the Icon itself for an Icon, null without icon', () => {
    const icon = { name: 'bolt', rendering_mode: 'palette', primary_color: 'red', secondary_color: null, tertiary_color: null, color_rendering: 'gradient' };
    expect(withIconV2({ icon }).icon_v2).toEqual(icon);
    expect(withIconV2({ icon: null }).icon_v2).toBeNull();
    expect(withIconV2({ progress: 1 })).toEqual({ progress: 1, icon_v2: null });
  });

  it('does not modify the stored content', () => {
    const stored = { icon: 'bolt' };
    withIconV2(stored);
    expect(stored).toEqual({ icon: 'bolt' });
  });

  it.each(['progress', 'monitor', 'generic'] as const)('%s: the echo matches the echo schema exactly', (template) => {
    const input = { progress: template === 'generic' ? 0.5 : { value: 0.5 }, icon: { name: 'x' } };
    if (template === 'monitor') delete (input as Record<string, unknown>).progress;
    const echoed = withIconV2(outputOf(activityContentSchemas[template], input) as Record<string, unknown>);
    // Re-validating the echo changes nothing: it already carries every field.
    expect(outputOf(activityEchoSchemas[template], echoed)).toEqual(echoed);
    expect(outputOf(activityDataEchoSchema, { state: 'ONGOING', content: echoed })).toEqual({ state: 'ONGOING', content: echoed });
  });
});

describe('activityDataSchema (whole body, template required)', () => {
  it('picks the template by content.template', () => {
    expect(outputOf(activityDataSchema, { state: 'IDLE', content: { template: 'generic', progress: 0 } })).toMatchObject({
      state: 'IDLE',
      content: { template: 'generic', progress: 0 },
    });
  });

  it('reports errors at plain paths', () => {
    expectOnlyError(
      activityDataSchema,
      { state: 'IDLE', content: { template: 'progress', progress: { value: 2 } } },
      ['content', 'progress', 'value'],
      'less_than_equal',
    );
    expectOnlyError(activityDataSchema, { state: 'IDLE', content: { progress: 0.5 } }, ['content', 'template'], 'missing');
    expectOnlyError(activityDataSchema, { state: 'IDLE', content: { template: 'big' } }, ['content', 'template'], 'literal_error');
  });

  it('uses the loc prefix', () => {
    const result = validate(activityDataSchema, { state: 'GONE', content: { template: 'monitor' } }, ['body']);
    expect(result).toEqual({
      success: false,
      errors: [{ loc: ['body', 'state'], msg: "Input should be 'IDLE' or 'ONGOING'", type: 'enum' }],
    });
  });
});
