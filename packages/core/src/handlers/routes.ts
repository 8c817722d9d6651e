import type { TilecastContext } from '../context.js';
import type { Route } from '../http/router.js';
import { deleteWebhooks } from './delete-webhooks.js';
import {
  deleteActivityPush,
  deleteDeviceFcm,
  deleteDevicePush,
  getDeviceActivities,
  getDeviceWidgets,
  getOneDeviceWidget,
  putActivityPush,
  putDeviceFcm,
  putDevicePush,
} from './device-sync.js';
import { getDeviceStream } from './get-device-stream.js';
import { getEvents } from './get-events.js';
import { getHealthz, getReadyz } from './health.js';
import { getOpenApi } from './get-openapi.js';
import { getWebhooks } from './get-webhooks.js';
import { patchActivity } from './patch-activity.js';
import { patchWidget } from './patch-widget.js';
import { putWebhooks } from './put-webhooks.js';
import { postPress } from './post-press.js';
import { headDeviceStream, headEvents } from './stream-heads.js';

/** The owner's API: publishing, the event stream, the OpenAPI document. */
export const publisherRoutes: Route<TilecastContext>[] = [
  { method: 'PATCH', pattern: '/activity/:slug', handler: patchActivity },
  { method: 'PATCH', pattern: '/widget/:slug', handler: patchWidget },
  { method: 'PUT', pattern: '/widget/:slug/webhooks', handler: putWebhooks },
  { method: 'GET', pattern: '/widget/:slug/webhooks', handler: getWebhooks },
  { method: 'DELETE', pattern: '/widget/:slug/webhooks', handler: deleteWebhooks },
  // An event stream's HEAD checks what its GET checks and opens nothing (`stream-heads.ts`).
  { method: 'GET', pattern: '/events', handler: getEvents, head: headEvents },
  { method: 'GET', pattern: '/openapi.json', handler: getOpenApi },
];

/** The phones' API, mounted on its own (the reference deployment puts it under `/device`). */
export const deviceRoutes: Route<TilecastContext>[] = [
  { method: 'POST', pattern: '/presses', handler: postPress },
  { method: 'GET', pattern: '/stream', handler: getDeviceStream, head: headDeviceStream },
  // The device sync API (docs/contract/device-api.md#device-sync-api).
  { method: 'PUT', pattern: '/push', handler: putDevicePush },
  { method: 'DELETE', pattern: '/push', handler: deleteDevicePush },
  { method: 'PUT', pattern: '/fcm', handler: putDeviceFcm },
  { method: 'DELETE', pattern: '/fcm', handler: deleteDeviceFcm },
  { method: 'PUT', pattern: '/activities/:owner/:slug/push', handler: putActivityPush },
  { method: 'DELETE', pattern: '/activities/:owner/:slug/push', handler: deleteActivityPush },
  { method: 'GET', pattern: '/activities', handler: getDeviceActivities },
  { method: 'GET', pattern: '/widgets', handler: getDeviceWidgets },
  { method: 'GET', pattern: '/widgets/:owner/:slug', handler: getOneDeviceWidget },
];

/** Liveness and readiness, for load balancers and orchestrators: mounted where the host likes (the reference server at the root). */
export const healthRoutes: Route<TilecastContext>[] = [
  { method: 'GET', pattern: '/healthz', handler: getHealthz },
  { method: 'GET', pattern: '/readyz', handler: getReadyz },
];
