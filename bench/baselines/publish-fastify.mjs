// Baseline for P1F: a hand-written Fastify route: Fastify's own JSON body parser (at
// Tilecast's 64 KiB limit), the same valibot schema Tilecast uses, a Map, and the
// contract's answer bytes (docs/contract/publisher-api.md#widget-response).
import Fastify from 'fastify';
import * as v from 'valibot';
import { widgetContentSchemas } from '@tilecast/core/schemas';
import { serve } from '../lib/serve.mjs';
import { widgetAnswer } from '../lib/spec-echo.mjs';

const store = new Map();
const app = Fastify({ bodyLimit: 64 * 1024 });
app.patch('/widget/:slug', async (request, reply) => {
  const result = v.safeParse(widgetContentSchemas.switchboard, request.body.content, { abortEarly: false, abortPipeEarly: true });
  if (!result.success) return reply.code(422).send({ detail: 'invalid' });
  store.set(request.params.slug, result.output);
  return widgetAnswer(result.output);
});
await app.ready();
await serve(undefined, {}, app.server);
