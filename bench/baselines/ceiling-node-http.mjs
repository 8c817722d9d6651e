// P0, the ceiling for P1, P1H, P1F and P3: bare node:http that reads the body, JSON.parses
// it and answers the same bytes as the baselines and Tilecast, without validating or storing
// anything. The answer is worked out once at start from the body the scenario sends (the
// baseline's validated echo, docs/contract/publisher-api.md#widget-response and
// docs/contract/publisher-api.md#activity-response-echo): per request only the reading, the
// parsing and the writing are left, the least any Node server answering it must do.
import * as v from 'valibot';
import { activityContentSchemas, widgetContentSchemas } from '@tilecast/core/schemas';
import { activityBody, widgetBody } from '../lib/payloads.mjs';
import { readBody, serve } from '../lib/serve.mjs';
import { activityAnswer, widgetAnswer } from '../lib/spec-echo.mjs';

const kind = process.argv[2]; // 'widget' | 'activity'
const sent = JSON.parse(kind === 'activity' ? activityBody() : widgetBody());
const answer = Buffer.from(
  JSON.stringify(
    kind === 'activity'
      ? activityAnswer(sent.state, v.parse(activityContentSchemas.progress, sent.content))
      : widgetAnswer(v.parse(widgetContentSchemas.switchboard, sent.content)),
  ),
);
const head = { 'content-type': 'application/json', 'content-length': answer.byteLength };

await serve(async (req, res) => {
  JSON.parse(await readBody(req));
  res.writeHead(200, head).end(answer);
});
