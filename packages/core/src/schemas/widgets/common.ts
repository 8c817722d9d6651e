/** Fields and conventions shared by every widget template (docs/contract/templates.md#widget-common-fields). */
import * as v from 'valibot';
import { iconField, tapUrlField } from '../blocks.js';
import { Color } from '../enums.js';
import { orNull } from '../primitives.js';
import type { WidgetTemplateName } from './names.js';

/**
 * `template`, `icon`, `accent`, `tap_url`. The template table lists `template` as required, but the
 * service fills in the widget's own template when it is omitted (docs/contract/publisher-api.md#check-template-mismatch), so, as
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
