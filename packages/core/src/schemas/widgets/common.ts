/** Fields and conventions shared by every widget template (reference-deployment §8). */
import * as v from 'valibot';
import { iconField, tapUrlField } from '../blocks.js';
import { Color } from '../enums.js';
import { orNull } from '../primitives.js';
import type { WidgetTemplateName } from './names.js';

/**
 * `template`, `icon`, `accent`, `tap_url`. §8 lists `template` as required, but the
 * service fills in the widget's own template when it is omitted (spec §2 step 5), so, as
 * for activities, it defaults to the template's own name.
 */
export function widgetFields<const TName extends WidgetTemplateName>(name: TName) {
  return {
    template: v.optional(v.literal(name), name),
    icon: iconField,
    accent: orNull(Color),
    tap_url: tapUrlField,
  };
}

/** Shared with the webhook map, so defined outside `widgets/`. */
export { withDefault } from '../fields.js';
