/**
 * The request bodies as checked at step 3 of the order of checks (docs/contract/publisher-api.md#check-body-shape), BEFORE the slug
 * lookup: shape, required fields and a known `content.template`. The rest of `content`
 * is checked at step 6 by the template's schema, once the resource (and so the default
 * template) is known.
 */
import * as v from 'valibot';
import { activityTemplateNames } from './activity.js';
import { ActivityState } from './enums.js';
import { literalMessage, MSG } from './messages.js';
import { hasOtherTemplate } from './content-template.js';
import { isPlainObject, strict } from './primitives.js';
import { staleAfterField } from './widgets/index.js';
import { widgetTemplateNames } from './widgets/names.js';

/**
 * An object whose `template`, if present, is one of `names`. The object itself is passed
 * through untouched, not copied: a copy (like `v.looseObject` makes) silently drops
 * `__proto__`, `constructor` and `prototype`, and the template schema must still see them
 * to refuse them.
 *
 * A `v.lazy` choosing one schema, not a `v.pipe` of two checks: every valibot pipe shares
 * one `~run`, and a new kind of check in any pipe on the publishing path makes all of
 * them look their steps up the slow (megamorphic) way.
 */
function contentWithTemplate<const TNames extends readonly string[]>(names: TNames) {
  type Content = { template?: TNames[number] } & Record<string, unknown>;
  const content = v.custom<Content>(isPlainObject, MSG.dict);
  // Only ever a refusal (one `literal_error` at `template`), so its copy of the object is never seen.
  const wrongTemplate = v.looseObject({ template: v.picklist(names, literalMessage(names)) }) as unknown as typeof content;
  return v.lazy((input: unknown) => (isPlainObject(input) && hasOtherTemplate(input, names) ? wrongTemplate : content));
}

/** `PATCH /activity/{slug}` body at step 3: `{state, content}`, content's template known. */
export const activityUpdateEnvelope = strict({
  state: ActivityState,
  content: contentWithTemplate(activityTemplateNames),
});

/** `PATCH /widget/{slug}` body at step 3: `{content, stale_after?}`, content's template known. */
export const widgetUpdateEnvelope = strict({
  content: contentWithTemplate(widgetTemplateNames),
  stale_after: staleAfterField,
});

export type ActivityUpdateEnvelope = v.InferOutput<typeof activityUpdateEnvelope>;
export type WidgetUpdateEnvelope = v.InferOutput<typeof widgetUpdateEnvelope>;
