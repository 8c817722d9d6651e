import type { TilecastContext } from '../context.js';
import type { Route } from '../http/router.js';
import { getOpenApi } from './get-openapi.js';
import { patchActivity } from './patch-activity.js';
import { patchWidget } from './patch-widget.js';

/** The publisher API. The device API and `/events` join this table in later slices. */
export const publisherRoutes: Route<TilecastContext>[] = [
  { method: 'PATCH', pattern: '/activity/:slug', handler: patchActivity },
  { method: 'PATCH', pattern: '/widget/:slug', handler: patchWidget },
  { method: 'GET', pattern: '/openapi.json', handler: getOpenApi },
];
