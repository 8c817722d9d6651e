import { describe, expect, it } from 'vitest';
import { Column, Icon, IconValue, iconField, ProgressBar, Segment, tapUrlField, Value } from '../../src/schemas/index.js';
import { strict } from '../../src/schemas/primitives.js';
import { colorBound, errorsOf, expectOnlyError, fractionBound, outputOf, s, schemaTable, stringBound, times } from './helpers.js';

const segment = { value: 0.5, fill_color: 'red' };

schemaTable('Icon', Icon, {
  base: { name: 'bolt' },
  required: [['name']],
  bounds: [
    stringBound(['name'], 64),
    { path: ['rendering_mode'], ok: ['monochrome', 'hierarchical', 'palette', 'multicolor', null], bad: [['mono', 'enum']] },
    colorBound(['primary_color'], true),
    colorBound(['secondary_color'], true),
    colorBound(['tertiary_color'], true),
    { path: ['color_rendering'], ok: ['flat', 'gradient', null], bad: [['shiny', 'enum']] },
  ],
});

schemaTable('Value', Value, {
  base: { value: '42 %' },
  required: [['value']],
  bounds: [
    stringBound(['value'], 128),
    colorBound(['text_color'], true),
    { path: ['formatter'], ok: ['time_since', 'time_until', null], bad: [['time_ago', 'enum']] },
  ],
});

schemaTable('Column', Column, {
  base: { value: { value: '3' } },
  required: [['value'], ['value', 'value']],
  bounds: [
    stringBound(['header'], 64),
    stringBound(['footer'], 64),
    { path: ['header'], ok: [null] },
    {
      path: ['value'],
      bad: [
        ['3', 'dict_type'],
        [null, 'dict_type'],
      ],
    },
  ],
});

schemaTable('Segment', Segment, {
  base: segment,
  required: [['value'], ['fill_color']],
  bounds: [
    fractionBound(['value']),
    colorBound(['fill_color'], false),
    colorBound(['track_color'], false),
    {
      path: ['track_fill'],
      ok: ['solid', 'hatched'],
      bad: [
        ['dotted', 'enum'],
        [null, 'enum'],
      ],
    },
    stringBound(['label'], 64),
    { path: ['label'], ok: [null] },
  ],
});

schemaTable('ProgressBar (simple)', ProgressBar, {
  base: { value: 0.25 },
  required: [['value']],
  bounds: [
    fractionBound(['value']),
    colorBound(['color'], false),
    {
      path: ['style'],
      ok: ['simple'],
      bad: [
        ['fancy', 'literal_error'],
        [null, 'literal_error'],
        [1, 'literal_error'],
      ],
    },
  ],
});

schemaTable('ProgressBar (segmented)', ProgressBar, {
  base: { style: 'segmented', value: 0.25, segments: [segment] },
  required: [['value'], ['segments'], ['segments', 0, 'fill_color']],
  bounds: [
    fractionBound(['value']),
    {
      path: ['segments'],
      ok: [times(4, () => segment)],
      bad: [
        [times(5, () => segment), 'too_long'],
        [[], 'too_short'],
        [segment, 'list_type'],
      ],
    },
    fractionBound(['segments', 0, 'value']),
    { path: ['display'], ok: ['split', 'layered'], bad: [['stacked', 'enum']] },
  ],
});

describe('ProgressBar style', () => {
  it('defaults to simple without segments', () => {
    expect(outputOf(ProgressBar, { value: 0.5 })).toEqual({ style: 'simple', value: 0.5, color: 'blue' });
  });

  it('defaults to segmented with segments', () => {
    expect(outputOf(ProgressBar, { value: 0.5, segments: [segment] })).toEqual({
      style: 'segmented',
      value: 0.5,
      segments: [{ value: 0.5, fill_color: 'red', track_color: 'gray', track_fill: 'solid', label: null }],
      display: 'split',
    });
  });

  it('reports a missing segment field at its plain path (no union tag in loc)', () => {
    expectOnlyError(ProgressBar, { value: 0.5, segments: [{ value: 0.5 }] }, ['segments', 0, 'fill_color'], 'missing');
  });

  it('keeps an explicit style: simple with segments refuses the segments', () => {
    expectOnlyError(ProgressBar, { style: 'simple', value: 0.5, segments: [segment] }, ['segments'], 'extra_forbidden');
  });

  it('segmented without segments reports them missing', () => {
    expectOnlyError(ProgressBar, { style: 'segmented', value: 0.5 }, ['segments'], 'missing');
  });

  it('an unknown style is one literal error listing the styles', () => {
    const error = expectOnlyError(ProgressBar, { style: 'fancy', value: 9 }, ['style'], 'literal_error');
    expect(error.msg).toBe("Input should be 'simple' or 'segmented'");
  });
});

describe('the icon field (string ≤ 64 | Icon | null)', () => {
  const holder = strict({ icon: iconField });

  it.each([
    ['absent', {}, null],
    ['null', { icon: null }, null],
    ['a 64-character string', { icon: s(64) }, s(64)],
    [
      'an Icon',
      { icon: { name: 'bolt', primary_color: 'red' } },
      {
        name: 'bolt',
        rendering_mode: null,
        primary_color: 'red',
        secondary_color: null,
        tertiary_color: null,
        color_rendering: null,
      },
    ],
  ])('accepts %s', (_, input, icon) => {
    expect(outputOf(holder, input)).toEqual({ icon });
  });

  it.each([
    ['a 65-character string', s(65), ['icon'], 'string_too_long'],
    ['a number', 5, ['icon'], 'icon_type'],
    ['a list', ['bolt'], ['icon'], 'icon_type'],
    ['an Icon without a name', { primary_color: 'red' }, ['icon', 'name'], 'missing'],
    ['an Icon with a long name', { name: s(65) }, ['icon', 'name'], 'string_too_long'],
    ['an Icon with a bad color', { name: 'bolt', primary_color: 'grey' }, ['icon', 'primary_color'], 'enum'],
    ['an Icon with an unknown key', { name: 'bolt', size: 2 }, ['icon', 'size'], 'extra_forbidden'],
  ])('refuses %s with one error at the deepest useful path', (_, icon, loc, type) => {
    expectOnlyError(holder, { icon }, loc, type);
  });

  it('IconValue alone refuses booleans', () => {
    expectOnlyError(IconValue, true, [], 'icon_type');
  });
});

describe('tap_url', () => {
  const holder = strict({ tap_url: tapUrlField });

  it.each([['https://example.com/x'], ['myapp://open/build'], [`https://e.com/${s(256 - 'https://e.com/'.length)}`], [null]])('accepts %s', (url) => {
    outputOf(holder, { tap_url: url });
  });

  it.each([
    ['', 'string_too_short'],
    [`https://e.com/${s(257 - 'https://e.com/'.length)}`, 'string_too_long'],
    ['not a url', 'url_parsing'],
    [42, 'string_type'],
  ])('refuses %s', (url, type) => {
    expectOnlyError(holder, { tap_url: url }, ['tap_url'], type);
  });
});

describe('messages', () => {
  it('words enum, bound and length errors like pydantic', () => {
    const errors = errorsOf(Segment, { value: 2, fill_color: 'grey', label: s(65) });
    expect(errors).toEqual([
      { loc: ['value'], msg: 'Input should be less than or equal to 1', type: 'less_than_equal' },
      {
        loc: ['fill_color'],
        msg: "Input should be 'red', 'orange', 'yellow', 'green', 'mint', 'teal', 'cyan', 'blue', 'indigo', 'purple', 'pink', 'brown', 'gray', 'gray2', 'gray3', 'gray4', 'gray5' or 'gray6'",
        type: 'enum',
      },
      { loc: ['label'], msg: 'String should have at most 64 characters', type: 'string_too_long' },
    ]);
  });

  it('words list bounds like pydantic', () => {
    const errors = errorsOf(ProgressBar, { value: 0.5, segments: times(5, () => segment) });
    expect(errors).toEqual([{ loc: ['segments'], msg: 'List should have at most 4 items after validation', type: 'too_long' }]);
  });
});
