import { randomUUID } from 'node:crypto';

/**
 * The `widget.action.v1` event the bare baselines make for a press (`go` on the `panel`
 * widget's button, kept 5 s): what a hand-written server would build, the same in each.
 */
export function pressEvent(requestId, now = Date.now()) {
  return {
    id: randomUUID(),
    request_id: requestId,
    type: 'widget.action.v1',
    subject: { kind: 'widget', slug: 'panel' },
    occurred_at: new Date(now).toISOString(),
    expires_at: new Date(now + 5000).toISOString(),
    data: { action: 'go', kind: 'button' },
  };
}
