// Every benchmark server (baseline or Tilecast) runs in its own process and reports to
// the runner over IPC: its port when ready, then its CPU time and memory on request.
import { createServer } from 'node:http';

/** Listens on 127.0.0.1 (random port) and answers the runner's IPC requests. `info` goes to the runner. */
export async function serve(listener, info = {}, server = createServer(listener)) {
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.on('message', (message) => {
    if (message?.type === 'stats') {
      // CPU first: the forced GC that makes the memory figure exact is the harness's work.
      // Only memory readings force it: a full GC throws away optimized code whose embedded
      // objects died, and the recompiling would then fall into the measured window.
      const cpu = process.cpuUsage();
      if (message.gc !== false) globalThis.gc?.();
      process.send({ type: 'stats', id: message.id, cpu, memory: process.memoryUsage() });
    }
  });
  process.on('disconnect', () => process.exit(0));
  // Exit normally on SIGTERM so --cpu-prof can write its profile.
  process.on('SIGTERM', () => process.exit(0));
  process.send({ type: 'ready', port: server.address().port, ...info });
  return server;
}

/** Reads a whole request body as a Buffer. */
export function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
