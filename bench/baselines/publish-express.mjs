// Baseline for P2: a hand-written Express 5 route: express.json() + the same schema + a Map.
import express from 'express';
import * as v from 'valibot';
import { widgetContentSchemas } from '@tilecast/core/schemas';
import { serve } from '../lib/serve.mjs';
import { widgetAnswer } from '../lib/spec-echo.mjs';

const store = new Map();
const app = express();
app.use(express.json({ limit: '64kb' }));
app.patch('/widget/:slug', (req, res) => {
  const result = v.safeParse(widgetContentSchemas.switchboard, req.body.content, { abortEarly: false, abortPipeEarly: true });
  if (!result.success) return void res.status(422).json({ detail: 'invalid' });
  store.set(req.params.slug, result.output);
  res.json(widgetAnswer(result.output));
});
await serve(app);
