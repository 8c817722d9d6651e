/**
 * The request bodies as checked at step 3 of reference-deployment §2, BEFORE the slug
 * lookup: shape, required fields and a known `content.template`. The rest of `content`
 * is checked at step 6 by the template's schema, once the resource (and so the default
 * template) is known.
 */
import * as v from 'valibot';
import { activityTemplateNames } from './activity.js';
import { ActivityState } from './enums.js';
import { literalMessage, MSG } from './messages.js';
import { isPlainObject, objectItem, strict } from './primitives.js';
import { staleAfterField } from './widgets/index.js';
import { widgetTemplateNames } from './widgets/names.js';

/**
 * An object whose `template`, if present, is one of `names`. The object itself is passed
 * through untouched, not copied: a copy (like `v.looseObject` makes) silently drops
 * `__proto__`, `constructor` and `prototype`, and the template schema must still see them
 * to refuse them.
 */
function contentWithTemplate<const TNames extends readonly string[]>(names: TNames) {
  const wrongTemplate = literalMessage(names);
  return v.pipe(
    v.custom<{ template?: TNames[number] } & Record<string, unknown>>(isPlainObject, MSG.dict),
    v.rawCheck<{ template?: TNames[number] } & Record<string, unknown>>(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const template = Object.hasOwn(dataset.value, 'template') ? dataset.value.template : undefined;
      if (template === undefined || names.includes(template)) return;
      addIssue({ message: wrongTemplate, path: [objectItem(dataset.value, 'template')] });
    }),
  );
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
