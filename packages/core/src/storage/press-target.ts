/** What a press needs to know of the widget it names (`Storage.getPressTarget`). */
export interface PressTarget {
  /**
   * The kind of the pressed action in the widget's current content (`actionKindIn`):
   * null when the content has no action of that id.
   */
  action: 'button' | 'toggle' | null;
  /** The widget is shared with the pressing device. */
  sharedWithDevice: boolean;
  /** The widget's webhook map has at least one entry. */
  hasWebhooks: boolean;
}

/**
 * The kind of action `actionId` in widget content: the first element of `content.actions`
 * whose `id` is exactly `actionId`; `'toggle'` when its `kind` is `'toggle'`, `'button'`
 * for any other kind; null when `actions` is not an array or has no such element. Every
 * store answers by this rule (the memory store calls it; PostgreSQL states it in SQL).
 */
export function actionKindIn(content: unknown, actionId: string): 'button' | 'toggle' | null {
  const actions = (content as { actions?: unknown } | null)?.actions;
  if (!Array.isArray(actions)) return null;
  for (let i = 0; i < actions.length; i++) {
    const action = actions[i] as { id?: unknown; kind?: unknown } | null;
    if (action?.id === actionId) return action.kind === 'toggle' ? 'toggle' : 'button';
  }
  return null;
}
