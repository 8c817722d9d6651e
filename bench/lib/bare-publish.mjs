// The bare publisher's request handler, shared by the P1/P3 baseline and the W1 baseline
// (which also forwards presses): it reads the body, validates the content with the same
// valibot schema Tilecast uses, stores it in a Map and answers with the validated content
// in the response shape of docs/contract/publisher-api.md#activity-response-echo and
// docs/contract/publisher-api.md#widget-response (so both servers send the same bytes).
import * as v from 'valibot';
import { activityContentSchemas, widgetContentSchemas } from '@tilecast/core/schemas';
import { readBody } from './serve.mjs';
import { activityAnswer, widgetAnswer } from './spec-echo.mjs';

/**
 * A handler for `PATCH /widget/…` (kind 'widget') or `PATCH /activity/…` (kind 'activity').
 * `onPublished(url, body, content)`, when given, is called after the answer with the
 * validated content (the APNs baseline pushes it on).
 */
export function barePublisher(kind, onPublished) {
  const schema = kind === 'activity' ? activityContentSchemas.progress : widgetContentSchemas.switchboard;
  const store = new Map();
  return async (req, res) => {
    const body = JSON.parse(await readBody(req));
    const result = v.safeParse(schema, body.content, { abortEarly: false, abortPipeEarly: true });
    if (!result.success) {
      res.writeHead(422, { 'content-type': 'application/json' }).end('{"detail":"invalid"}');
      return;
    }
    store.set(req.url, result.output);
    const payload = JSON.stringify(kind === 'activity' ? activityAnswer(body.state, result.output) : widgetAnswer(result.output));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }).end(payload);
    onPublished?.(req.url, body, result.output);
  };
}
