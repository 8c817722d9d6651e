import type { TilecastContext } from '../context.js';
import type { RouteHandler } from '../http/router.js';

/** `GET /openapi.json`: the only endpoint without authentication. */
export const getOpenApi: RouteHandler<TilecastContext> = async (context) => ({
  kind: 'json',
  status: 200,
  body: context.openapi(),
});
