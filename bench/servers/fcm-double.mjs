// The receiver of the FCM scenario: transport-fcm's test double (HTTP/2 over TLS, every
// assertion, access token and message checked as docs/contract/android-fcm.md#fcm-message and
// the rules after it say), in a process of its own, on the load core (see scenarios/fcm.mjs).
// IPC: `stats` (CPU, memory), `reset` (forget what was received), `summary` (counts).
import { startFcmDouble } from '@tilecast/transport-fcm/test-double';
import { FCM_PROJECT } from '../lib/fcm-fleet.mjs';

const double = await startFcmDouble({ projectId: FCM_PROJECT, clientEmail: process.env.BENCH_FCM_CLIENT_EMAIL, publicKey: process.env.BENCH_FCM_PUBLIC_KEY });

function summary() {
  const statuses = {};
  const tokens = new Set();
  for (const message of double.received) {
    statuses[message.status] = (statuses[message.status] ?? 0) + 1;
    tokens.add(message.registrationToken);
  }
  const example = double.received.find((message) => message.status !== 200) ?? null;
  return {
    received: double.received.length,
    statuses,
    devices: tokens.size,
    outOfOrder: 0,
    example: example && { status: example.status, error: example.error },
    ...double.stats(),
  };
}

process.on('message', (message) => {
  if (message?.type === 'stats') {
    process.send({ type: 'stats', id: message.id, cpu: process.cpuUsage(), memory: process.memoryUsage() });
  } else if (message?.type === 'reset') {
    double.received.length = 0;
    process.send({ type: 'reset', id: message.id });
  } else if (message?.type === 'summary') {
    process.send({ type: 'summary', id: message.id, ...summary() });
  }
});
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
process.send({ type: 'ready', port: Number(new URL(double.origin).port), origin: double.origin, ca: double.ca });
