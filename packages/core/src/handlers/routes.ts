import type { TilecastContext } from '../context.js';
import type { Route } from '../http/router.js';
import { deleteWebhooks } from './delete-webhooks.js';
import { getOpenApi } from './get-openapi.js';
import { getWebhooks } from './get-webhooks.js';
import { patchActivity } from './patch-activity.js';
import { patchWidget } from './patch-widget.js';
import { putWebhooks } from './put-webhooks.js';

/** The publisher API. The device API and `/events` join this table in later slices. */
export const publisherRoutes: Route<TilecastContext>[] = [
  { method: 'PATCH', pattern: '/activity/:slug', handler: patchActivity },
  { method: 'PATCH', pattern: '/widget/:slug', handler: patchWidget },
  { method: 'PUT', pattern: '/widget/:slug/webhooks', handler: putWebhooks },
  { method: 'GET', pattern: '/widget/:slug/webhooks', handler: getWebhooks },
  { method: 'DELETE', pattern: '/widget/:slug/webhooks', handler: deleteWebhooks },
  { method: 'GET', pattern: '/openapi.json', handler: getOpenApi },
];
