import type { CoreRequest } from '../../src/adapter.js';

/** A publisher's `PATCH` of `path` with an already parsed body, as an adapter hands it to the core. */
export const patchRequest = (token: string, path: string, value: unknown): CoreRequest => ({
  method: 'PATCH',
  path,
  query: new URLSearchParams(),
  headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
  body: { kind: 'parsed', value },
});

/** `PATCH /widget/lights`: a switchboard with one action labelled `label`. */
export const widgetPatch = (token: string, label: string) =>
  patchRequest(token, '/widget/lights', { content: { template: 'switchboard', actions: [{ id: 'bell', label }] } });

/** `PATCH /activity/game`: the progress template, ongoing, at `value`. */
export const activityPatch = (token: string, value: number) =>
  patchRequest(token, '/activity/game', { state: 'ONGOING', content: { template: 'progress', progress: { value } } });
