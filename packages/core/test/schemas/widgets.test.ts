import { describe, expect, it } from 'vitest';
import { widgetContentSchema, widgetContentSchemas, widgetTemplateNames } from '../../src/schemas/index.js';
import { colorBound, errorsOf, expectOnlyError, fractionBound, outputOf, s, schemaTable, stringBound, times, type BoundCase } from './helpers.js';

const T0 = '2024-05-01T10:00:00Z';

/** Rows every widget template shares (docs/contract/templates.md#widget-common-fields): template, icon, accent, tap_url. */
const commonBounds = (template: string): BoundCase[] => [
  { path: ['template'], ok: [template], bad: [['other', 'literal_error']] },
  stringBound(['icon'], 64, 0, 'icon_type'),
  { path: ['icon'], ok: [null, { name: 'bolt', color_rendering: 'flat' }], bad: [[{ name: s(65) }, 'string_too_long']], errorLoc: ['icon', 'name'] },
  colorBound(['accent'], true),
  {
    path: ['tap_url'],
    ok: [null, `https://e.com/${s(242)}`],
    bad: [
      [`https://e.com/${s(243)}`, 'string_too_long'],
      ['relative/path', 'url_parsing'],
    ],
  },
];

const timestampBound = (path: (string | number)[]): BoundCase => ({
  path,
  ok: ['2024-05-01T10:00:00Z', '2024-05-01T10:00:00.123456+05:30', '2024-02-29t23:59:59-00:00', '2024-05-01 10:00:00+01:00'],
  bad: [
    ['2024-05-01T10:00:00', 'timezone_aware'],
    ['2024-05-01', 'datetime_parsing'],
    ['2023-02-29T10:00:00Z', 'datetime_parsing'],
    ['2024-05-01T24:00:00Z', 'datetime_parsing'],
    ['2024-05-01T10:00:60Z', 'datetime_parsing'],
    ['tomorrow', 'datetime_parsing'],
    [1714557600, 'string_type'],
  ],
});

const numberBound = (path: (string | number)[], min?: number, max?: number): BoundCase => {
  const ok: unknown[] = [min ?? -1e9, max ?? 1e9];
  const bad: [unknown, string][] = [
    ['1', 'float_type'],
    [Infinity, 'finite_number'],
    [null, 'float_type'],
  ];
  if (min !== undefined) bad.push([min - 0.001, 'greater_than_equal']);
  if (max !== undefined) bad.push([max + 0.001, 'less_than_equal']);
  return { path, ok, bad };
};

const listBound = (path: (string | number)[], item: unknown, min: number, max: number): BoundCase => {
  const bad: [unknown, string][] = [
    [times(max + 1, () => item), 'too_long'],
    [item, 'list_type'],
  ];
  if (min > 0) bad.push([times(min - 1, () => item), 'too_short']);
  return { path, ok: [times(min, () => item), times(max, () => item)], bad };
};

const value = { value: '21 °C' };

schemaTable('widget status', widgetContentSchemas.status, {
  base: { value },
  required: [],
  bounds: [
    ...commonBounds('status'),
    { path: ['value'], ok: [{ value: s(128) }], bad: [[{ value: s(129) }, 'string_too_long']], errorLoc: ['value', 'value'] },
    { path: ['state'], ok: [value, null] },
  ],
});

schemaTable('widget progress', widgetContentSchemas.progress, {
  base: { progress: { value: 0.5 } },
  required: [['progress'], ['progress', 'value']],
  bounds: [...commonBounds('progress'), fractionBound(['progress', 'value']), timestampBound(['end_date']), { path: ['end_date'], ok: [null] }],
});

schemaTable('widget gauge', widgetContentSchemas.gauge, {
  base: { value: 50 },
  required: [['value']],
  bounds: [
    ...commonBounds('gauge'),
    numberBound(['value']),
    // A value outside min..max is stored as sent.
    { path: ['value'], ok: [150, -20] },
    {
      path: ['min_value'],
      ok: [99.9, null, -1000],
      bad: [
        [100, 'value_error'],
        [101, 'value_error'],
      ],
      errorLoc: ['max_value'],
    },
    { path: ['min_value'], bad: [['0', 'float_type']] },
    {
      path: ['max_value'],
      ok: [0.1, null],
      bad: [
        [0, 'value_error'],
        [-1, 'value_error'],
      ],
    },
    stringBound(['unit'], 16),
    stringBound(['label'], 64),
    colorBound(['color'], true),
  ],
});

const device = { name: 'Phone', level: 80 };
schemaTable('widget battery', widgetContentSchemas.battery, {
  base: { devices: [device] },
  required: [['devices'], ['devices', 0, 'name'], ['devices', 0, 'level']],
  bounds: [
    ...commonBounds('battery'),
    listBound(['devices'], device, 1, 8),
    stringBound(['devices', 0, 'name'], 64, 1),
    numberBound(['devices', 0, 'level'], 0, 100),
    {
      path: ['devices', 0, 'charging'],
      ok: [true, false, null],
      bad: [
        ['true', 'bool_type'],
        [1, 'bool_type'],
      ],
    },
    stringBound(['devices', 0, 'icon'], 64),
  ],
});

const category = { label: 'Food', spent: 120 };
schemaTable('widget budget', widgetContentSchemas.budget, {
  base: { total: { spent: 10 }, currency: 'EUR' },
  required: [['total'], ['total', 'spent'], ['currency']],
  bounds: [
    ...commonBounds('budget'),
    numberBound(['total', 'spent'], 0),
    {
      path: ['total', 'budget'],
      ok: [0.01, null],
      bad: [
        [0, 'greater_than'],
        [-5, 'greater_than'],
      ],
    },
    {
      path: ['currency'],
      ok: ['USD', 'JPY'],
      bad: [
        ['eur', 'string_pattern_mismatch'],
        ['EURO', 'string_pattern_mismatch'],
        ['', 'string_pattern_mismatch'],
      ],
    },
    { path: ['display'], ok: ['remaining', 'spent', null], bad: [['left', 'enum']] },
    listBound(['categories'], category, 0, 6),
    { path: ['categories'], ok: [null] },
    {
      path: ['categories'],
      ok: [[{ ...category, icon: 'cart', color: 'green', budget: 200 }]],
      bad: [[[{ ...category, label: '' }], 'string_too_short']],
      errorLoc: ['categories', 0, 'label'],
    },
    { path: ['categories'], bad: [[[{ ...category, spent: -1 }], 'greater_than_equal']], errorLoc: ['categories', 0, 'spent'] },
    { path: ['categories'], bad: [[[{ ...category, budget: 0 }], 'greater_than']], errorLoc: ['categories', 0, 'budget'] },
    { path: ['categories'], bad: [[[{ spent: 1 }], 'missing']], errorLoc: ['categories', 0, 'label'] },
    { path: ['subtitle'], ok: [value, null], bad: [['text', 'dict_type']] },
  ],
});

schemaTable('widget trend', widgetContentSchemas.trend, {
  base: { value: 3, points: [1, 2] },
  required: [['value'], ['points']],
  bounds: [
    ...commonBounds('trend'),
    numberBound(['value']),
    listBound(['points'], 1.5, 2, 48),
    numberBound(['points', 1]),
    stringBound(['unit'], 16),
    colorBound(['color'], true),
    { path: ['state'], ok: [value, null] },
  ],
});

schemaTable('widget countdown', widgetContentSchemas.countdown, {
  base: { target: '2030-01-01T00:00:00+02:00' },
  required: [['target']],
  bounds: [...commonBounds('countdown'), timestampBound(['target']), stringBound(['expired_text'], 64), { path: ['subtitle'], ok: [value, null] }],
});

const row = { label: 'CPU', value: { value: '12 %' } };
schemaTable('widget list', widgetContentSchemas.list, {
  base: { rows: [row] },
  required: [['rows'], ['rows', 0, 'label'], ['rows', 0, 'value'], ['rows', 0, 'value', 'value']],
  bounds: [...commonBounds('list'), listBound(['rows'], row, 1, 6), stringBound(['rows', 0, 'label'], 64, 1), stringBound(['rows', 0, 'icon'], 64)],
});

const entry = { start: T0, price: -0.05 };
const hourly = (count: number) => times(count, (hour) => ({ start: new Date(Date.parse(T0) + hour * 3_600_000).toISOString(), price: hour }));
schemaTable('widget prices', widgetContentSchemas.prices, {
  base: { entries: [entry] },
  required: [['entries'], ['entries', 0, 'start'], ['entries', 0, 'price']],
  bounds: [
    ...commonBounds('prices'),
    {
      path: ['entries'],
      ok: [hourly(1), hourly(48)],
      bad: [
        [hourly(49), 'too_long'],
        [[], 'too_short'],
        [entry, 'list_type'],
      ],
    },
    timestampBound(['entries', 0, 'start']),
    numberBound(['entries', 0, 'price']),
    { path: ['entries', 0, 'level'], ok: ['low', 'medium', 'high', null], bad: [['extreme', 'enum']] },
    stringBound(['unit'], 16),
  ],
});

describe('widget prices: starts strictly increasing', () => {
  const schema = widgetContentSchemas.prices;
  it('refuses an equal start at the offending entry', () => {
    expectOnlyError(schema, { entries: [entry, entry] }, ['entries', 1, 'start'], 'value_error');
  });
  it('compares instants, not strings', () => {
    // 10:30+01:00 is 09:30Z: earlier than 10:00Z although it sorts later as text.
    expectOnlyError(schema, { entries: [entry, { start: '2024-05-01T10:30:00+01:00', price: 1 }] }, ['entries', 1, 'start'], 'value_error');
    outputOf(schema, {
      entries: [
        { start: '2024-05-01T10:00:00+01:00', price: 1 },
        { start: '2024-05-01T09:30:00Z', price: 1 },
      ],
    });
  });
  it('reports every out-of-order entry', () => {
    const errors = errorsOf(schema, { entries: [hourly(3)[2], hourly(3)[1], hourly(3)[0]] });
    expect(errors.map((error) => error.loc)).toEqual([
      ['entries', 1, 'start'],
      ['entries', 2, 'start'],
    ]);
  });
});

const source = { power: 1200 };
schemaTable('widget energy', widgetContentSchemas.energy, {
  base: { sources: [source] },
  required: [['sources', 0, 'power']],
  bounds: [
    ...commonBounds('energy'),
    {
      path: ['sources'],
      ok: [times(3, () => source)],
      bad: [
        [times(4, () => source), 'too_long'],
        [source, 'list_type'],
      ],
    },
    numberBound(['sources', 0, 'power'], 0),
    stringBound(['sources', 0, 'name'], 64),
    { path: ['sources', 0, 'today'], ok: [0, null], bad: [[-0.1, 'greater_than_equal']] },
    { path: ['sources', 0, 'icon'], ok: ['sun', { name: 'sun' }, null], bad: [[false, 'icon_type']] },
    colorBound(['sources', 0, 'color'], true),
    { path: ['grid'], ok: [{ power: -300, today: 2 }, null], bad: [[{ today: 1 }, 'missing']], errorLoc: ['grid', 'power'] },
    { path: ['battery'], ok: [{ power: -5, level: 100 }], bad: [[{ power: 5, level: 100.5 }, 'less_than_equal']], errorLoc: ['battery', 'level'] },
    { path: ['home'], ok: [{ power: 0 }], bad: [[{ power: -1 }, 'greater_than_equal']], errorLoc: ['home', 'power'] },
  ],
});

describe('widget energy: at least one source or node', () => {
  const schema = widgetContentSchemas.energy;
  it.each([[{ grid: { power: 1 } }], [{ battery: { power: 0 } }], [{ home: { power: 0 } }], [{ sources: [source] }]])('accepts %j', (input) => {
    outputOf(schema, input);
  });
  it.each([[{}], [{ sources: [] }], [{ sources: null, grid: null }]])('refuses %j at the content itself', (input) => {
    expectOnlyError(schema, input, [], 'value_error');
  });
});

describe('widget status: at least one of value and state', () => {
  it('accepts state alone', () => {
    outputOf(widgetContentSchemas.status, { state: value });
  });
  it.each([[{}], [{ value: null, state: null }]])('refuses %j', (input) => {
    expectOnlyError(widgetContentSchemas.status, input, [], 'value_error');
  });
});

const toggle = { id: 'lamp', label: 'Lamp', kind: 'toggle', on: false };
const button = { id: 'door', label: 'Open door' };
schemaTable('widget switchboard', widgetContentSchemas.switchboard, {
  base: { actions: [toggle] },
  required: [['actions'], ['actions', 0, 'id'], ['actions', 0, 'label'], ['actions', 0, 'on']],
  bounds: [
    ...commonBounds('switchboard'),
    {
      path: ['actions'],
      ok: [times(8, (i) => ({ ...toggle, id: `a${i}` }))],
      bad: [
        [times(9, (i) => ({ ...toggle, id: `a${i}` })), 'too_long'],
        [[], 'too_short'],
      ],
    },
    {
      path: ['actions', 0, 'id'],
      ok: ['a', s(32), 'Light_1-b'],
      bad: [
        [s(33), 'string_too_long'],
        ['', 'string_too_short'],
        ['a b', 'string_pattern_mismatch'],
        ['lamp*', 'string_pattern_mismatch'],
      ],
    },
    stringBound(['actions', 0, 'label'], 32, 1),
    stringBound(['actions', 0, 'icon'], 64),
    colorBound(['actions', 0, 'color'], true),
    {
      path: ['actions', 0, 'on'],
      ok: [true],
      bad: [
        ['true', 'bool_type'],
        [null, 'bool_type'],
      ],
    },
    { path: ['actions', 0, 'kind'], bad: [['switch', 'literal_error']] },
    { path: ['actions', 0, 'active'], bad: [[true, 'extra_forbidden']] },
    {
      path: ['actions', 0, 'state_words'],
      ok: [null, {}, { on: s(16), off: 'Off', turning_on: 'Heating', turning_off: 'Cooling', no_response: '?', sent: 'Done' }],
    },
    { path: ['actions', 0, 'state_words'], bad: [[{ on: s(17) }, 'string_too_long']], errorLoc: ['actions', 0, 'state_words', 'on'] },
    { path: ['actions', 0, 'state_words'], bad: [[{ sent: '' }, 'string_too_short']], errorLoc: ['actions', 0, 'state_words', 'sent'] },
    { path: ['actions', 0, 'state_words'], bad: [[{ loud: 'x' }, 'extra_forbidden']], errorLoc: ['actions', 0, 'state_words', 'loud'] },
    stringBound(['title'], 32),
    stringBound(['subtitle'], 64),
    { path: ['gradient'], ok: [{ from: 'blue', to: 'purple' }, null], bad: [[{ from: 'blue' }, 'missing']], errorLoc: ['gradient', 'to'] },
    { path: ['gradient'], bad: [[{ from: 'blue', to: 'violet' }, 'enum']], errorLoc: ['gradient', 'to'] },
    { path: ['picture'], ok: [{ url: 'https://example.com/p.jpg', alt: s(120) }, null] },
    { path: ['picture'], bad: [[{ url: 'http://example.com/p.jpg', alt: 'p' }, 'url_scheme']], errorLoc: ['picture', 'url'] },
    { path: ['picture'], bad: [[{ url: 'https:', alt: 'p' }, 'url_parsing']], errorLoc: ['picture', 'url'] },
    { path: ['picture'], bad: [[{ url: `https://e.com/${s(243)}`, alt: 'p' }, 'string_too_long']], errorLoc: ['picture', 'url'] },
    { path: ['picture'], bad: [[{ url: 'https://e.com/p', alt: s(121) }, 'string_too_long']], errorLoc: ['picture', 'alt'] },
    { path: ['picture'], bad: [[{ url: 'https://e.com/p', alt: '' }, 'string_too_short']], errorLoc: ['picture', 'alt'] },
    { path: ['picture'], bad: [[{ url: 'https://e.com/p' }, 'missing']], errorLoc: ['picture', 'alt'] },
  ],
});

describe('widget switchboard actions', () => {
  const schema = widgetContentSchemas.switchboard;

  it('a button needs no kind and gets kind and active in the echo; a toggle has on and no active', () => {
    const output = outputOf(schema, { actions: [button, toggle] }) as { actions: unknown[] };
    expect(output.actions).toEqual([
      { id: 'door', label: 'Open door', icon: null, kind: 'button', color: null, active: false, state_words: null },
      { id: 'lamp', label: 'Lamp', icon: null, kind: 'toggle', color: null, on: false, state_words: null },
    ]);
  });

  it('kind null is a button (an explicit null means absent)', () => {
    outputOf(schema, { actions: [{ ...button, kind: null, active: null }] });
  });

  it('on is not allowed on a button', () => {
    expectOnlyError(schema, { actions: [{ ...button, on: true }] }, ['actions', 0, 'on'], 'extra_forbidden');
    expectOnlyError(schema, { actions: [{ ...button, kind: 'button', on: false }] }, ['actions', 0, 'on'], 'extra_forbidden');
  });

  it('active is a boolean on buttons', () => {
    outputOf(schema, { actions: [{ ...button, active: true }] });
    expectOnlyError(schema, { actions: [{ ...button, active: 'yes' }] }, ['actions', 0, 'active'], 'bool_type');
  });

  it('ids must be unique: every repeat is reported at its id', () => {
    const errors = errorsOf(schema, { actions: [toggle, { ...button, id: 'lamp' }, { ...button, id: 'x' }, { ...toggle }] });
    expect(errors).toEqual([
      { loc: ['actions', 1, 'id'], msg: 'Value error, action ids must be unique within the widget', type: 'value_error' },
      { loc: ['actions', 3, 'id'], msg: 'Value error, action ids must be unique within the widget', type: 'value_error' },
    ]);
  });

  it('an action that is not an object is a dict_type error at its index', () => {
    expectOnlyError(schema, { actions: ['lamp'] }, ['actions', 0], 'dict_type');
  });
});

describe('widget echo', () => {
  const common = { icon: null, accent: null, tap_url: null };
  it.each([
    ['status', { value }, { template: 'status', ...common, value: { value: '21 °C', text_color: null, formatter: null }, state: null }],
    [
      'progress',
      { progress: { value: 0.5 } },
      { template: 'progress', ...common, progress: { style: 'simple', value: 0.5, color: 'blue' }, state: null, end_date: null },
    ],
    ['gauge', { value: 5 }, { template: 'gauge', ...common, value: 5, min_value: 0, max_value: 100, unit: null, label: null, color: null }],
    [
      'gauge',
      { value: 5, min_value: null, max_value: null },
      { template: 'gauge', ...common, value: 5, min_value: 0, max_value: 100, unit: null, label: null, color: null },
    ],
    ['battery', { devices: [device] }, { template: 'battery', ...common, devices: [{ name: 'Phone', level: 80, charging: false, icon: null }] }],
    [
      'budget',
      { total: { spent: 1 }, currency: 'EUR', display: null },
      { template: 'budget', ...common, total: { spent: 1, budget: null }, categories: null, currency: 'EUR', display: 'remaining', subtitle: null },
    ],
    ['trend', { value: 1, points: [1, 2] }, { template: 'trend', ...common, value: 1, points: [1, 2], unit: null, state: null, color: null }],
    ['countdown', { target: T0 }, { template: 'countdown', ...common, target: T0, subtitle: null, expired_text: null }],
    [
      'list',
      { rows: [row] },
      { template: 'list', ...common, rows: [{ label: 'CPU', value: { value: '12 %', text_color: null, formatter: null }, icon: null }] },
    ],
    ['prices', { entries: [entry] }, { template: 'prices', ...common, entries: [{ start: T0, price: -0.05, level: null }], unit: null }],
    ['energy', { home: { power: 1 } }, { template: 'energy', ...common, sources: null, grid: null, battery: null, home: { power: 1, today: null } }],
    [
      'switchboard',
      { actions: [button] },
      {
        template: 'switchboard',
        ...common,
        actions: [{ id: 'door', label: 'Open door', icon: null, kind: 'button', color: null, active: false, state_words: null }],
        title: null,
        subtitle: null,
        gradient: null,
        picture: null,
      },
    ],
  ] as const)('%s: defaults applied, every optional field present (null where unset), no icon_v2', (template, input, expected) => {
    expect(outputOf(widgetContentSchemas[template], input)).toEqual(expected);
  });

  it('fills state words with nulls', () => {
    const output = outputOf(widgetContentSchemas.switchboard, { actions: [{ ...button, state_words: { sent: 'Opened' } }] }) as {
      actions: { state_words: unknown }[];
    };
    expect(output.actions[0]!.state_words).toEqual({ on: null, off: null, turning_on: null, turning_off: null, no_response: null, sent: 'Opened' });
  });
});

describe('widgetContentSchema (template required)', () => {
  it('has a schema for each of the eleven templates', () => {
    expect(Object.keys(widgetContentSchemas)).toEqual([...widgetTemplateNames]);
    expect(widgetTemplateNames).toHaveLength(11);
  });

  it('picks by template and reports plain paths', () => {
    outputOf(widgetContentSchema, { template: 'gauge', value: 1 });
    expectOnlyError(widgetContentSchema, { template: 'gauge', value: 1, min_value: 100 }, ['max_value'], 'value_error');
    expectOnlyError(widgetContentSchema, { value: 1 }, ['template'], 'missing');
    expectOnlyError(widgetContentSchema, { template: 'weather' }, ['template'], 'literal_error');
  });
});
