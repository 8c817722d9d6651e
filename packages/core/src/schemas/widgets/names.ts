/** The widget templates: the ten of the specification plus the interactive `switchboard`. */
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
