import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { TRANSPORT_CLOSED, type ApnsAnswer } from './connection.js';
import type { ConnectionLoad, Connections } from './connection-pool.js';
import type { ApnsRequest } from './request.js';
import { ACCEPTED, REQUEST_FIELDS, type FromWorker, type RequestsMessage, type WorkerSettings } from './worker-protocol.js';

/**
 * The worker's script: built beside this module (`dist/connection-worker.js`). A worker
 * thread runs JavaScript only, so when this module runs from the package's TypeScript
 * sources (the repository's tests), it is the build's (test/global-setup.ts rebuilds it
 * when it is older than its sources).
 */
export function connectionWorkerPath(): string {
  const beside = fileURLToPath(new URL('./connection-worker.js', import.meta.url));
  if (existsSync(beside)) return beside;
  const built = fileURLToPath(new URL('../dist/connection-worker.js', import.meta.url));
  if (import.meta.url.endsWith('.ts') && existsSync(built)) return built;
  throw new Error(`transport-apns: its connection worker ${beside} is missing (build the package, or pass connectionThread: 'main')`);
}

export interface WorkerPoolOptions extends WorkerSettings {
  /** A connection to `origin` replaced one that was lost. */
  onReconnect: (origin: string) => void;
  /** The worker stopped (it failed); its requests were answered `network` and a new one starts with the next request. */
  onWorkerExit: (reason: string) => void;
  /** The worker's script (default `connectionWorkerPath()`; tests give one that fails). */
  script?: string;
}

interface Pending {
  origin: string;
  resolve: (answer: ApnsAnswer) => void;
}

/**
 * The connections in a worker thread (`connection-worker.ts`): HTTP/2, TLS and the garbage
 * they make (about 19 KB per request in Node 20) are the worker's, so a fan-out of
 * thousands of pushes never holds the event loop and the heap that answer the host's
 * requests. Requests go over in one message per turn of the event loop, answers come back
 * likewise. The worker holds the process only while requests are pending.
 */
export class WorkerConnectionPool implements Connections {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  /** Requests not yet handed over, flat (see `WorkerRequest`). */
  private outbox: RequestsMessage['requests'] = [];
  private flushScheduled = false;
  private nextId = 0;
  private reported: ConnectionLoad = {};
  private closed = false;

  private readonly script: string;

  constructor(private readonly options: WorkerPoolOptions) {
    this.script = options.script ?? connectionWorkerPath();
  }

  request(origin: string, request: ApnsRequest, authorization: string): Promise<ApnsAnswer> {
    if (this.closed) return Promise.resolve(TRANSPORT_CLOSED);
    const id = ++this.nextId;
    return new Promise((resolve) => {
      this.pending.set(id, { origin, resolve });
      if (this.pending.size === 1) this.worker?.ref();
      const { key, token, pushType, topic, priority, expiration, body } = request;
      this.outbox.push(id, origin, key, token, pushType, topic, priority, expiration, authorization, body);
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Per origin: the worker's open streams as it last reported them; every other pending request is waiting. */
  load(): ConnectionLoad {
    const handed: Record<string, number> = {};
    for (const { origin } of this.pending.values()) handed[origin] = (handed[origin] ?? 0) + 1;
    const origins = new Set([...Object.keys(this.reported), ...Object.keys(handed)]);
    return Object.fromEntries(
      [...origins].map((origin) => {
        const count = handed[origin] ?? 0;
        const active = Math.min(count, this.reported[origin]?.active ?? 0);
        return [origin, { active, waiting: count - active }];
      }),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    this.outbox = [];
    this.answerAll(TRANSPORT_CLOSED);
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.closed || this.outbox.length === 0) return;
    const message: RequestsMessage = { type: 'requests', requests: this.outbox };
    this.outbox = [];
    this.workerNow().postMessage(message);
  }

  private workerNow(): Worker {
    if (this.worker !== null) return this.worker;
    const { ca, maxConcurrentStreams, requestTimeoutMs } = this.options;
    const settings: WorkerSettings = { ca, maxConcurrentStreams, requestTimeoutMs };
    // No flags of the host's (`--input-type`, loaders, `--conditions`...): some are refused
    // in a worker, and the script, plain JavaScript with relative imports only, needs none.
    const worker = new Worker(this.script, { workerData: settings, execArgv: [] });
    worker.on('message', (message: FromWorker) => this.received(message));
    const stopped = (reason: string) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.reported = {};
      // What it was handed is lost with it (and retried as any lost stream); what is still
      // in the outbox goes to the next worker.
      const unsent = new Set<number>();
      for (let at = 0; at < this.outbox.length; at += REQUEST_FIELDS) unsent.add(this.outbox[at] as number);
      this.answerAll({ kind: 'network', error: `connection worker stopped: ${reason}` }, unsent);
      this.options.onWorkerExit(reason);
    };
    worker.on('error', (error) => stopped(String(error)));
    worker.on('exit', (code) => stopped(`exit code ${code}`));
    if (this.pending.size === 0) worker.unref();
    this.worker = worker;
    return worker;
  }

  private received(message: FromWorker): void {
    if (message.type === 'reconnect') return this.options.onReconnect(message.origin);
    this.reported = message.load;
    for (const id of message.accepted) this.answer(id, ACCEPTED);
    for (const [id, answer] of message.answers) this.answer(id, answer);
    if (this.pending.size === 0) this.worker?.unref();
  }

  private answer(id: number, answer: ApnsAnswer): void {
    const pending = this.pending.get(id);
    if (pending === undefined) return;
    this.pending.delete(id);
    pending.resolve(answer);
  }

  private answerAll(answer: ApnsAnswer, except: ReadonlySet<number> = new Set()): void {
    const answered: Pending[] = [];
    for (const [id, pending] of this.pending) {
      if (except.has(id)) continue;
      this.pending.delete(id);
      answered.push(pending);
    }
    if (this.pending.size === 0) this.worker?.unref();
    for (const { resolve } of answered) resolve(answer);
  }
}
