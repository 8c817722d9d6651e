/** The widget templates: ten plus the interactive `switchboard` (docs/contract/templates.md#widget-templates). */
export const widgetTemplateNames = [
  'status',
  'progress',
  'gauge',
  'battery',
  'budget',
  'trend',
  'countdown',
  'list',
  'prices',
  'energy',
  'switchboard',
] as const;

export type WidgetTemplateName = (typeof widgetTemplateNames)[number];
