// The receiver of the APNs scenarios: transport-apns's test double (HTTP/2 over TLS, every
// provider token and payload checked as docs/contract/apns.md#apns-jwt and the push rules after it say), in a
// process of its own.
// It runs on the load core (see scenarios/apns.mjs), never on the measured server's.
// IPC: `stats` (CPU, memory), `reset` (forget what was received), `summary` (counts, per
// device token whether its pushes arrived in timestamp and update order, how many device
// tokens did not end on the newest update, how many start pushes named a channel, and the
// broadcasts and channel management requests: A4).
import { startApnsDouble } from '@tilecast/transport-apns/test-double';
import { APNS_IDS, sequenceOf } from '../lib/apns-fleet.mjs';

const double = await startApnsDouble({ ...APNS_IDS, publicKey: process.env.BENCH_APNS_PUBLIC_KEY });

/** Per device token: pushes in arrival order, and the first one out of timestamp or update order. */
function summary() {
  const statuses = {};
  const last = new Map();
  let outOfOrder = 0;
  let example = null;
  let startsOnChannel = 0;
  for (const push of double.received) {
    statuses[push.status] = (statuses[push.status] ?? 0) + 1;
    const aps = push.payload?.aps;
    if (aps?.['input-push-channel'] !== undefined) startsOnChannel++;
    if (aps?.timestamp === undefined) continue;
    const sequence = sequenceOf(aps['content-state']?.content?.header_left?.value);
    const previous = last.get(push.deviceToken);
    if (previous !== undefined && (aps.timestamp < previous.timestamp || sequence < previous.sequence)) {
      outOfOrder++;
      example ??= { before: previous, after: { timestamp: aps.timestamp, sequence } };
    }
    last.set(push.deviceToken, { timestamp: aps.timestamp, sequence });
  }
  // Devices whose last push is not the newest update any device got (latest state wins).
  const newest = Math.max(...[...last.values()].map((push) => push.sequence));
  const behindLatest = [...last.values()].filter((push) => push.sequence < newest).length;
  return {
    received: double.received.length,
    statuses,
    devices: last.size,
    outOfOrder,
    behindLatest,
    example,
    startsOnChannel,
    broadcasts: broadcastSummary(),
    channelRequests: double.channelRequests.length,
    ...double.stats(),
  };
}

/** The broadcasts received: how many, their statuses, and how many on each channel. */
function broadcastSummary() {
  const statuses = {};
  const byChannel = {};
  for (const broadcast of double.broadcasts) {
    statuses[broadcast.status] = (statuses[broadcast.status] ?? 0) + 1;
    byChannel[broadcast.channelId] = (byChannel[broadcast.channelId] ?? 0) + 1;
  }
  return { received: double.broadcasts.length, statuses, byChannel };
}

process.on('message', (message) => {
  if (message?.type === 'stats') {
    const cpu = process.cpuUsage();
    process.send({ type: 'stats', id: message.id, cpu, memory: process.memoryUsage() });
  } else if (message?.type === 'reset') {
    double.received.length = 0;
    double.broadcasts.length = 0;
    double.channelRequests.length = 0;
    process.send({ type: 'reset', id: message.id });
  } else if (message?.type === 'summary') {
    process.send({ type: 'summary', id: message.id, ...summary() });
  }
});
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
process.send({ type: 'ready', port: Number(new URL(double.origin).port), origin: double.origin, ca: double.ca });
