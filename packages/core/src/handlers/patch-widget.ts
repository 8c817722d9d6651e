import type { TilecastContext } from '../context.js';
import { once } from '../once.js';
import { readJsonBodySized } from '../http/body.js';
import type { RouteHandler } from '../http/router.js';
import type { CoreResult } from '../http/types.js';
import { updateWidget } from '../publishing/widgets.js';

/** `PATCH /widget/{slug}`. Promise steps, not async functions (see `patchActivity`). */
export const patchWidget: RouteHandler<TilecastContext> = (context, request, params) => {
  const body = once(() => readJsonBodySized(request));
  return context.credentials
    .publishAs(request, (credential) => body().then((read) => updateWidget(context, credential, params.slug!, read.value, read)))
    .then((data): CoreResult => ({ kind: 'json', status: 200, body: data }));
};
