import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { activityContentSchemas, activityUpdateEnvelope, validate, widgetUpdateEnvelope } from '../../src/schemas/index.js';
import { validateActivityEnvelope, validateWidgetEnvelope } from '../../src/schemas/usual-envelopes.js';
import { errorsOf, outputOf } from './helpers.js';

describe('activityUpdateEnvelope (step 3)', () => {
  const body = { state: 'ONGOING', content: { template: 'progress', progress: { value: 0.5 } } };

  it('accepts state and content, with or without a template', () => {
    outputOf(activityUpdateEnvelope, body);
    outputOf(activityUpdateEnvelope, { state: 'IDLE', content: {} });
  });

  it('does not check the rest of content (the template schema does, at step 6)', () => {
    outputOf(activityUpdateEnvelope, { state: 'IDLE', content: { template: 'generic', progress: 'lots', anything: 1 } });
  });

  it.each([
    ['state missing', { content: {} }, ['body', 'state'], 'missing'],
    ['content missing', { state: 'IDLE' }, ['body', 'content'], 'missing'],
    ['state unknown', { state: 'RUNNING', content: {} }, ['body', 'state'], 'enum'],
    ['state lower case', { state: 'idle', content: {} }, ['body', 'state'], 'enum'],
    ['content a list', { state: 'IDLE', content: [] }, ['body', 'content'], 'dict_type'],
    ['content a string', { state: 'IDLE', content: 'progress' }, ['body', 'content'], 'dict_type'],
    ['content null', { state: 'IDLE', content: null }, ['body', 'content'], 'dict_type'],
    ['template unknown', { state: 'IDLE', content: { template: 'gauge' } }, ['body', 'content', 'template'], 'literal_error'],
    ['template null', { state: 'IDLE', content: { template: null } }, ['body', 'content', 'template'], 'literal_error'],
    ['template a number', { state: 'IDLE', content: { template: 1 } }, ['body', 'content', 'template'], 'literal_error'],
    ['an unknown key', { ...body, extra: 1 }, ['body', 'extra'], 'extra_forbidden'],
    ['body a list', [], ['body'], 'dict_type'],
    ['body null', null, ['body'], 'dict_type'],
  ])('%s', (_, input, loc, type) => {
    expect(errorsOf(activityUpdateEnvelope, input, ['body']).map((error) => [error.loc, error.type])).toEqual([[loc, type]]);
  });

  it('names the templates in the template error', () => {
    const [error] = errorsOf(activityUpdateEnvelope, { state: 'IDLE', content: { template: 'x' } }, ['body']);
    expect(error).toEqual({ loc: ['body', 'content', 'template'], msg: "Input should be 'progress', 'monitor' or 'generic'", type: 'literal_error' });
  });

  it('refuses a top-level __proto__', () => {
    const input = JSON.parse('{"state":"IDLE","content":{},"__proto__":{"state":"ONGOING"}}');
    expect(errorsOf(activityUpdateEnvelope, input, ['body'])).toEqual([
      { loc: ['body', '__proto__'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
    ]);
  });

  it('keeps a nested __proto__ so that the template schema refuses it (handler flow)', () => {
    const input = JSON.parse('{"state":"IDLE","content":{"progress":0.5,"__proto__":{"state":"x"}}}');
    const envelope = validate(activityUpdateEnvelope, input, ['body']);
    if (!envelope.success) throw new Error('envelope refused');
    const { content } = envelope.output;
    const template = content.template ?? 'generic';
    const result = validate(activityContentSchemas[template], { ...content, template }, ['body', 'content']);
    expect(result).toEqual({
      success: false,
      errors: [{ loc: ['body', 'content', '__proto__'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }],
    });
    expect(({} as Record<string, unknown>).state).toBeUndefined();
  });
});

describe('widgetUpdateEnvelope (step 3)', () => {
  it('accepts any of the eleven templates, or none', () => {
    for (const template of ['status', 'progress', 'gauge', 'battery', 'budget', 'trend', 'countdown', 'list', 'prices', 'energy', 'switchboard']) {
      outputOf(widgetUpdateEnvelope, { content: { template } });
    }
    outputOf(widgetUpdateEnvelope, { content: { value: 3 } });
  });

  it('leaves stale_after out of the output when omitted, keeps null', () => {
    expect(Object.hasOwn(outputOf(widgetUpdateEnvelope, { content: {} }) as object, 'stale_after')).toBe(false);
    expect(outputOf(widgetUpdateEnvelope, { content: {}, stale_after: null })).toEqual({ content: {}, stale_after: null });
  });

  it.each([[60], [604_800], [3600], [60.0]])('accepts stale_after %s', (staleAfter) => {
    expect(outputOf(widgetUpdateEnvelope, { content: {}, stale_after: staleAfter })).toEqual({ content: {}, stale_after: staleAfter });
  });

  it.each([
    [59, 'greater_than_equal'],
    [604_801, 'less_than_equal'],
    ['60', 'int_type'],
    [60.5, 'int_type'],
    [-0, 'int_type'],
    [true, 'int_type'],
  ])('refuses stale_after %s', (staleAfter, type) => {
    expect(errorsOf(widgetUpdateEnvelope, { content: {}, stale_after: staleAfter }, ['body']).map((error) => [error.loc, error.type])).toEqual([
      [['body', 'stale_after'], type],
    ]);
  });

  it.each([
    ['content missing', {}, ['body', 'content'], 'missing'],
    ['content a list', { content: [] }, ['body', 'content'], 'dict_type'],
    ['template unknown', { content: { template: 'weather' } }, ['body', 'content', 'template'], 'literal_error'],
    ['an unknown key', { content: {}, privacy: 'visible' }, ['body', 'privacy'], 'extra_forbidden'],
  ])('%s', (_, input, loc, type) => {
    expect(errorsOf(widgetUpdateEnvelope, input, ['body']).map((error) => [error.loc, error.type])).toEqual([[loc, type]]);
  });

  it('reports every field error at once', () => {
    expect(errorsOf(widgetUpdateEnvelope, { content: { template: 'x' }, stale_after: 1, extra: 1 }, ['body']).map((error) => error.loc)).toEqual([
      ['body', 'content', 'template'],
      ['body', 'stale_after'],
      ['body', 'extra'],
    ]);
  });
});

describe('the usual envelopes, answered without the full check', () => {
  const template = fc.constantFrom(undefined, null, 'progress', 'generic', 'switchboard', 'status', 'gauge', 'x', 1);
  const content = fc.oneof(
    fc.record({ template, title: fc.string() }, { requiredKeys: [] }),
    fc.constantFrom([], null, 'progress', Object.create(null) as object, JSON.parse('{"__proto__":{"template":"x"}}') as object),
    fc.anything(),
  );
  const value = fc.oneof(content, fc.constantFrom('IDLE', 'ONGOING', 'idle', 60, null));
  const bodies = fc.oneof(
    fc.record({ state: value, content, stale_after: fc.oneof(fc.integer(), fc.constant(null)), extra: value }, { requiredKeys: [] }),
    fc.record({ state: fc.constantFrom('IDLE', 'ONGOING', 'RUNNING'), content }),
    fc.record({ content }),
    fc.anything(),
  );

  it('give what validate() gives, output and errors, on every body', () => {
    fc.assert(
      fc.property(bodies, (body) => {
        expect(validateWidgetEnvelope(body)).toEqual(validate(widgetUpdateEnvelope, body, ['body']));
        expect(validateActivityEnvelope(body)).toEqual(validate(activityUpdateEnvelope, body, ['body']));
      }),
      { numRuns: 5_000 },
    );
  });

  it('pass the content on as the same object', () => {
    const body = { state: 'ONGOING', content: { template: 'progress', progress: { value: 0.5 } } };
    const widget = validateWidgetEnvelope({ content: body.content });
    const activity = validateActivityEnvelope(body);
    expect(widget.success && widget.output.content).toBe(body.content);
    expect(activity.success && activity.output.content).toBe(body.content);
  });
});
