import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PushAnswer } from '../../../src/transport/push/connection.js';
import type { RequestFormat } from '../../../src/transport/push/request-format.js';
import { WorkerConnectionPool } from '../../../src/transport/push/worker-pool.js';

interface Request {
  key: string;
  body: string;
}

/** A request of two fields, its key and body. */
const FORMAT: RequestFormat<Request> = {
  headers: (_request, authorization) => ({ ':method': 'POST', ':path': '/', authorization }),
  body: (request) => request.body,
  reason: () => null,
  fields: 2,
  encode: (request, into) => void into.push(request.key, request.body),
  decode: (from, at) => ({ key: from[at] as string, body: from[at + 1] as string }),
};

describe('WorkerConnectionPool: a worker that stops', () => {
  it('answers what it was handed as a network failure, says so, and starts a new worker for the next request', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tilecast-worker-'));
    const script = join(dir, 'failing-worker.mjs');
    // Exits as soon as it is handed anything, like a worker that crashed.
    writeFileSync(script, "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', () => process.exit(3));\n");
    const exits: string[] = [];
    const pool = new WorkerConnectionPool({
      script,
      format: FORMAT,
      maxConcurrentStreams: 10,
      requestTimeoutMs: 10_000,
      onReconnect: () => {},
      onWorkerExit: (reason) => exits.push(reason),
    });
    try {
      const first = await pool.request('https://127.0.0.1:1', { key: 'k', body: '{}' }, 'bearer x');
      expect(first).toEqual<PushAnswer>({ kind: 'network', error: 'connection worker stopped: exit code 3' });
      const second = await pool.request('https://127.0.0.1:1', { key: 'k', body: '{}' }, 'bearer x');
      expect(second.kind).toBe('network');
      expect(exits).toEqual(['exit code 3', 'exit code 3']);
    } finally {
      await pool.close();
    }
  });
});
