// Diagnostic: in-process cost of one press against the baseline's per-press work.
import { commandLine } from '../lib/cli.mjs';
import { compareInProcess } from '../lib/in-process.mjs';
import { inProcessPresses } from '../lib/in-process-presses.mjs';
import { pressEvent } from '../lib/press-event.mjs';

const { positionals } = commandLine(`
Usage: node bench/tools/inproc-press.mjs [calls]

In-process cost of one POST /device/presses through the core's device.handle() (memory
store, 1,000 accounts, no sockets, no streams open) against the bare per-press work
(parse, event envelope, SSE frame, answer). Three rounds of each side after a 20,000-call
warm-up; prints µs per call and Tilecast's added µs.

  calls     calls per round and side (default 100000)

Environment:
  ONLY=b|t  run only the baseline (b) or Tilecast (t), once: for node --cpu-prof
`);
const N = Number(positionals[0] ?? 100000);
const ACCOUNTS = 1000;
const press = await inProcessPresses(ACCOUNTS);
let i = 0;
async function baseline() {
  const n = i++ % ACCOUNTS;
  const bytes = Buffer.from(JSON.stringify({ account: n, request_id: `r-${i}` }));
  const { request_id } = JSON.parse(bytes.toString());
  const event = pressEvent(request_id);
  const frame = `id: u:${i}\ndata: ${JSON.stringify(event)}\n\n`;
  return frame + JSON.stringify({ event_id: event.id });
}
await compareInProcess({ baseline, tilecast: press, calls: N });
process.exit(0);
