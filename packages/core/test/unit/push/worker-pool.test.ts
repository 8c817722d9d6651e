import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { PushAnswer } from '../../../src/transport/push/connection.js';
import type { RequestFormat } from '../../../src/transport/push/request-format.js';
import { WorkerConnectionPool } from '../../../src/transport/push/worker-pool.js';
import { REQUEST_HEAD, unrepeat } from '../../../src/transport/push/worker-protocol.js';

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

describe('WorkerConnectionPool: strings repeated across a message', () => {
  it("sends a string equal to the previous request's once per message, and the worker gets every request whole", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tilecast-worker-'));
    const script = join(dir, 'echo-worker.mjs');
    // Hands each message's requests back as they crossed (as a reconnect's origin: the one
    // message the pool passes on untouched), and answers nothing.
    writeFileSync(
      script,
      "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', ({ requests }) => parentPort.postMessage({ type: 'reconnect', origin: requests }));\n",
    );
    const crossed: unknown[][] = [];
    const pool = new WorkerConnectionPool({
      script,
      format: FORMAT,
      maxConcurrentStreams: 10,
      requestTimeoutMs: 10_000,
      onReconnect: (requests) => crossed.push(requests as unknown as unknown[]),
      onWorkerExit: () => {},
    });
    const a = 'https://a.test';
    const b = 'https://b.test';
    const sent: Array<[string, Request, string]> = [
      [a, { key: 'k1', body: 'tail' }, 'bearer 1'],
      [a, { key: 'k2', body: 'tail' }, 'bearer 1'],
      [b, { key: 'k3', body: 'other' }, 'bearer 1'],
      [a, { key: 'k4', body: 'tail' }, 'bearer 2'],
      [a, { key: 'k4', body: 'tail' }, 'bearer 2'],
    ];
    try {
      const answers = sent.map(([origin, request, authorization]) => pool.request(origin, request, authorization));
      await vi.waitFor(() => expect(crossed).toHaveLength(1));
      const [requests] = crossed as [unknown[]];
      const stride = REQUEST_HEAD + FORMAT.fields;
      // Only what equals the request before it is left out: ids and the first request never.
      // biome-ignore format: one request a line
      expect(requests).toEqual([
        1, a, 'bearer 1', 'k1', 'tail',
        2, undefined, undefined, 'k2', undefined,
        3, b, undefined, 'k3', 'other',
        4, a, 'bearer 2', 'k4', 'tail',
        5, undefined, undefined, undefined, undefined,
      ]);
      unrepeat(requests, stride);
      expect(requests).toEqual(sent.flatMap(([origin, request, authorization], i) => [i + 1, origin, authorization, request.key, request.body]));
      // A new message starts afresh: its first request is whole.
      const later = pool.request(a, { key: 'k5', body: 'tail' }, 'bearer 2');
      await vi.waitFor(() => expect(crossed).toHaveLength(2));
      expect(crossed[1]).toEqual([6, a, 'bearer 2', 'k5', 'tail']);
      await pool.close();
      for (const answer of [...answers, later]) expect((await answer).kind).toBe('network');
    } finally {
      await pool.close();
    }
  });
});
