// Diagnostic: in-process cost of one `POST /device/presses` (no sockets, no streams open),
// against the baseline's per-press work (parse, envelope, frame, answer).
import { randomUUID } from 'node:crypto';
import { compareInProcess } from '../lib/in-process.mjs';
import { inProcessPresses } from '../lib/in-process-presses.mjs';

const N = Number(process.argv[2] ?? 100000);
const ACCOUNTS = 1000;
const press = await inProcessPresses(ACCOUNTS);
let i = 0;
async function baseline() {
  const n = i++ % ACCOUNTS;
  const bytes = Buffer.from(JSON.stringify({ account: n, request_id: `r-${i}` }));
  const { request_id } = JSON.parse(bytes.toString());
  const now = Date.now();
  const event = { id: randomUUID(), request_id, type: 'widget.action.v1', subject: { kind: 'widget', slug: 'panel' }, occurred_at: new Date(now).toISOString(), expires_at: new Date(now + 5000).toISOString(), data: { action: 'go', kind: 'button' } };
  const frame = `id: u:${i}\ndata: ${JSON.stringify(event)}\n\n`;
  return frame + JSON.stringify({ event_id: event.id });
}
await compareInProcess({ baseline, tilecast: press, calls: N });
process.exit(0);
