/**
 * Compile-time checks, run by `tsc` (the root typecheck includes this file): a wrong
 * template field must not compile, and the hand-written content types must match the
 * core's validating schemas in both directions.
 */
import type * as core from '@tilecast/core/schemas';
import type { InferInput, InferOutput } from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import { createClient, type ActivityEcho, type WidgetContent, type WidgetEcho } from '../src/index.js';
import type * as client from '../src/content.js';
import type { ActivityContentEcho as CoreActivityContentEcho } from '../../core/src/schemas/echo.js';
import type { WebhookEntryInput, WebhookMapOutput } from '../../core/src/webhooks/map-schema.js';
import type { WebhookEntry, WebhookMap } from '../src/webhooks.js';

const never = (() => {
  throw new Error('type test: not called');
}) as unknown as typeof fetch;
const api = createClient({ baseUrl: 'http://127.0.0.1:1', token: 't', fetch: never });

/** Never run: only compiled. */
function compileOnly(): void {
  void api.activity('build').update({ state: 'ONGOING', content: { template: 'progress', progress: { value: 0.5 } } });
  // @ts-expect-error the progress template takes a ProgressBar object, not a number
  void api.activity('build').update({ state: 'ONGOING', content: { template: 'progress', progress: 0.5 } });
  // @ts-expect-error unknown field on the monitor template
  void api.activity('build').update({ state: 'IDLE', content: { template: 'monitor', progress: { value: 1 } } });
  // @ts-expect-error not an activity state
  void api.activity('build').update({ state: 'DONE', content: { template: 'generic', progress: 1 } });
  // @ts-expect-error not an activity template
  void api.activity('build').update({ state: 'IDLE', content: { template: 'gauge', value: 1 } });
  // @ts-expect-error the template pinned by the handle
  void api.activity<'generic'>('build').update({ state: 'IDLE', content: { template: 'progress', progress: { value: 1 } } });

  void api.widget('boiler').update({ content: { template: 'gauge', value: 61, unit: '°C' }, stale_after: 3600 });
  // @ts-expect-error `actions` is a switchboard field, not a gauge field
  void api.widget('boiler').update({ content: { template: 'gauge', value: 61, actions: [] } });
  // @ts-expect-error `value` must be a number
  void api.widget('boiler').update({ content: { template: 'gauge', value: '61' } });
  // @ts-expect-error a toggle needs `on`
  void api.widget('lights').update({ content: { template: 'switchboard', actions: [{ id: 'hall', label: 'Hall', kind: 'toggle' }] } });
  // @ts-expect-error `on` is a toggle field, not a button field
  void api.widget('lights').update({ content: { template: 'switchboard', actions: [{ id: 'bell', label: 'Bell', on: true }] } });
  // @ts-expect-error the template pinned by the handle
  void api.widget<'switchboard'>('lights').update({ content: { template: 'gauge', value: 1 } });
  // @ts-expect-error stale_after is seconds, a number
  void api.widget('boiler').update({ content: { template: 'gauge', value: 1 }, stale_after: '60' });
}

/** `A` and `B` accept exactly the same values. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** The core's input with `template` required, as the client requires it. */
type CoreInput<T> = T extends { template?: infer N } ? Omit<T, 'template'> & { template: Exclude<N, undefined> } : never;

describe('types', () => {
  it('narrows the echo to the template sent', () => {
    expectTypeOf(compileOnly).toBeFunction();
    type Echo = Awaited<ReturnType<ReturnType<typeof api.widget<'gauge'>>['update']>>;
    expectTypeOf<Echo>().toEqualTypeOf<WidgetEcho<'gauge'>>();
    expectTypeOf<WidgetEcho<'gauge'>['content']['unit']>().toEqualTypeOf<string | null>();
    expectTypeOf<ActivityEcho<'progress'>['content']['template']>().toEqualTypeOf<'progress'>();
    expectTypeOf<ActivityEcho<'progress'>['content']['icon_v2']>().toExtend<{ name: string } | null>();
  });

  it('match the core schemas in both directions', () => {
    expectTypeOf<Same<client.ProgressActivityContent, CoreInput<core.ProgressActivityInput>>>().toEqualTypeOf<true>();
    expectTypeOf<Same<client.MonitorActivityContent, CoreInput<core.MonitorActivityInput>>>().toEqualTypeOf<true>();
    expectTypeOf<Same<client.GenericActivityContent, CoreInput<core.GenericActivityInput>>>().toEqualTypeOf<true>();
    expectTypeOf<Same<WidgetContent<'status'>, CoreInput<core.StatusWidgetInput>>>().toEqualTypeOf<true>();
    expectTypeOf<Same<WidgetContent<'progress'>, CoreInput<core.ProgressWidgetInput>>>().toEqualTypeOf<true>();
    expectTypeOf<Same<WidgetContent<'gauge'>, CoreInput<core.GaugeWidgetInput>>>().toEqualTypeOf<true>();
    expectTypeOf<Same<WidgetContent<'battery'>, CoreInput<core.BatteryWidgetInput>>>().toEqualTypeOf<true>();
    expectTypeOf<Same<WidgetContent<'budget'>, CoreInput<core.BudgetWidgetInput>>>().toEqualTypeOf<true>();
    expectTypeOf<Same<WidgetContent<'trend'>, CoreInput<core.TrendWidgetInput>>>().toEqualTypeOf<true>();
    expectTypeOf<Same<WidgetContent<'countdown'>, CoreInput<core.CountdownWidgetInput>>>().toEqualTypeOf<true>();
    expectTypeOf<Same<WidgetContent<'list'>, CoreInput<core.ListWidgetInput>>>().toEqualTypeOf<true>();
    expectTypeOf<Same<WidgetContent<'prices'>, CoreInput<core.PricesWidgetInput>>>().toEqualTypeOf<true>();
    expectTypeOf<Same<WidgetContent<'energy'>, CoreInput<core.EnergyWidgetInput>>>().toEqualTypeOf<true>();
    expectTypeOf<Same<WidgetContent<'switchboard'>, CoreInput<core.SwitchboardWidgetInput>>>().toEqualTypeOf<true>();
  });

  it('describe every echo the core can produce', () => {
    expectTypeOf<core.GaugeWidgetOutput>().toExtend<client.WidgetContentEcho<'gauge'>>();
    expectTypeOf<core.SwitchboardWidgetOutput>().toExtend<client.WidgetContentEcho<'switchboard'>>();
    expectTypeOf<core.EnergyWidgetOutput>().toExtend<client.WidgetContentEcho<'energy'>>();
    expectTypeOf<core.BudgetWidgetOutput>().toExtend<client.WidgetContentEcho<'budget'>>();
    expectTypeOf<CoreActivityContentEcho>().toExtend<client.ActivityContentEcho>();
  });

  it('match the webhook map endpoints', () => {
    expectTypeOf<Same<WebhookEntry, InferInput<typeof WebhookEntryInput>>>().toEqualTypeOf<true>();
    expectTypeOf<InferOutput<typeof WebhookMapOutput>>().toExtend<WebhookMap>();
  });
});
