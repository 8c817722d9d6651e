// Diagnostic: pieces of the node:http adapter path with a trivial core (reads the JSON
// body, answers a fixed JSON), against a bare server, to find what the path costs.
// argv[2]: bare | read (adapter's body reader) | write (adapter's writer) | adapter (all).
import { handleNodeRequest, readLimited, writeCoreResult } from '@tilecast/adapter-node-http';
import { readJsonBody } from '@tilecast/core/adapter';
import { readBody, serve } from '../lib/serve.mjs';

const mode = process.argv[2];
const answer = { content: { ok: true }, stale_after: null };
const core = {
  async handle(request) {
    await readJsonBody(request);
    return { kind: 'json', status: 200, body: answer };
  },
};
const bareWrite = (res) => {
  const payload = JSON.stringify(answer);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }).end(payload);
};
const listeners = {
  bare: async (req, res) => {
    JSON.parse(await readBody(req));
    bareWrite(res);
  },
  read: async (req, res) => {
    JSON.parse(Buffer.from(await readLimited(req, 65536)).toString());
    bareWrite(res);
  },
  write: async (req, res) => {
    JSON.parse(await readBody(req));
    await writeCoreResult(res, { kind: 'json', status: 200, body: answer });
  },
  adapter: (req, res) => void handleNodeRequest(core, req, res),
};
await serve(listeners[mode]);
