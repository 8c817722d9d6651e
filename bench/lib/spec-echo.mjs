/**
 * The answers to a successful PATCH (docs/contract/publisher-api.md#activity-response-echo, docs/contract/publisher-api.md#echo-defaults,
 * docs/contract/publisher-api.md#widget-response), as a hand-written endpoint
 * must build them too: baselines answer with the same bytes as Tilecast.
 */
const nullIconFields = { rendering_mode: null, primary_color: null, secondary_color: null, tertiary_color: null, color_rendering: null };

/** `icon_v2` is the icon as an Icon object (docs/contract/publisher-api.md#echo-icon-v2); a validated object icon already has every field. */
const withIconV2 = (content) => ({
  ...content,
  icon_v2: typeof content.icon === 'string' ? { name: content.icon, ...nullIconFields } : (content.icon ?? null),
});

export const widgetAnswer = (content) => ({ content, stale_after: null });

export const activityAnswer = (state, content) => ({ state, content: withIconV2(content) });
