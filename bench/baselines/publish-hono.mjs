// Baseline for P1H: a hand-written Hono route on @hono/node-server: the request's JSON body,
// the same valibot schema Tilecast uses, a Map, and the contract's answer bytes
// (docs/contract/publisher-api.md#widget-response).
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import * as v from 'valibot';
import { widgetContentSchemas } from '@tilecast/core/schemas';
import { serve } from '../lib/serve.mjs';
import { widgetAnswer } from '../lib/spec-echo.mjs';

const store = new Map();
const app = new Hono();
app.patch('/widget/:slug', async (c) => {
  const body = await c.req.json();
  const result = v.safeParse(widgetContentSchemas.switchboard, body.content, { abortEarly: false, abortPipeEarly: true });
  if (!result.success) return c.json({ detail: 'invalid' }, 422);
  store.set(c.req.param('slug'), result.output);
  return c.json(widgetAnswer(result.output));
});
await serve(getRequestListener(app.fetch));
