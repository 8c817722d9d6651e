import type * as v from 'valibot';
import { iconField } from '../blocks.js';
import { Color } from '../enums.js';
import { atLeast, between, finiteNumber, orNull, strict, text } from '../primitives.js';
import { atLeastOneOf } from '../at-least-one.js';
import { widgetFields } from './common.js';
import { list } from '../list.js';

/** A producer; `name` null means solar. Power in W, `today` in kWh. */
export const EnergySource = strict({
  name: orNull(text(64)),
  power: atLeast(0),
  today: orNull(atLeast(0)),
  icon: iconField,
  color: orNull(Color),
});

/** `power` positive: importing, negative: exporting. */
export const GridNode = strict({
  power: finiteNumber(),
  today: orNull(atLeast(0)),
});

/** `power` positive: charging, negative: discharging. */
export const BatteryNode = strict({
  power: finiteNumber(),
  level: orNull(between(0, 100)),
});

export const HomeNode = strict({
  power: atLeast(0),
  today: orNull(atLeast(0)),
});

export const energyWidgetSchema = atLeastOneOf(
  strict({
    ...widgetFields('energy'),
    sources: orNull(list(EnergySource, { max: 3 })),
    grid: orNull(GridNode),
    battery: orNull(BatteryNode),
    home: orNull(HomeNode),
  }),
  { sources: 'listed', grid: 'set', battery: 'set', home: 'set' },
  'at least one source or one of grid, battery and home is required',
);

export type EnergyWidgetInput = v.InferInput<typeof energyWidgetSchema>;
export type EnergyWidgetOutput = v.InferOutput<typeof energyWidgetSchema>;
