import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { TRANSPORT_CLOSED, type PushAnswer } from './connection.js';
import type { ConnectionLoad, Connections } from './connection-pool.js';
import type { PushRequest, RequestFormat } from './request-format.js';
import { ACCEPTED, REPEATED, REQUEST_HEAD, type FromWorker, type RequestsMessage, type WorkerSettings } from './worker-protocol.js';

/**
 * The path of a transport's connection-worker script `name` (plain JavaScript: a worker
 * thread runs no TypeScript), built beside the module at `moduleUrl` (its
 * `import.meta.url`). When that module runs from the package's TypeScript sources (the
 * repository's tests), it is the one in the package's `dist/` (test/global-setup.ts
 * rebuilds it when it is older than its sources).
 */
export function workerScriptPath(moduleUrl: string, name: string): string {
  const beside = fileURLToPath(new URL(`./${name}.js`, moduleUrl));
  if (existsSync(beside)) return beside;
  const built = fileURLToPath(new URL(`../dist/${name}.js`, moduleUrl));
  if (moduleUrl.endsWith('.ts') && existsSync(built)) return built;
  throw new Error(`its connection worker ${beside} is missing (build the package, or pass connectionThread: 'main')`);
}

export interface WorkerPoolOptions<R extends PushRequest> extends WorkerSettings {
  /** The worker's script (see `workerScriptPath`): it calls `serveConnections` with the same `format`. */
  script: string;
  format: RequestFormat<R>;
  /** A connection to `origin` replaced one that was lost. */
  onReconnect: (origin: string) => void;
  /** The worker stopped (it failed); its requests were answered `network` and a new one starts with the next request. */
  onWorkerExit: (reason: string) => void;
}

interface Pending {
  origin: string;
  resolve: (answer: PushAnswer) => void;
}

/**
 * The connections in a worker thread (a transport's script that runs `serveConnections`): HTTP/2, TLS and the garbage
 * they make (about 19 KB per request in Node 20) are the worker's, so a fan-out of
 * thousands of pushes never holds the event loop and the heap that answer the host's
 * requests. Requests go over in one message per turn of the event loop, answers come back
 * likewise. The worker holds the process only while requests are pending.
 */
export class WorkerConnectionPool<R extends PushRequest> implements Connections<R> {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  /** Requests not yet handed over, flat (see `RequestHead`). */
  private outbox: unknown[] = [];
  private flushScheduled = false;
  private nextId = 0;
  private reported: ConnectionLoad = {};
  private closed = false;

  /** Values per request in the outbox. */
  private readonly stride: number;
  /**
   * The values of the outbox's last request as given (see `REPEATED`): a string equal to
   * the one at the same place in the request before it in the same message (origin,
   * `authorization`, a fan-out's shared path, body or message tail) crosses as REPEATED,
   * not copied again (to the worker, and by the worker into a string of its own).
   */
  private readonly last: unknown[];

  constructor(private readonly options: WorkerPoolOptions<R>) {
    this.stride = REQUEST_HEAD + options.format.fields;
    this.last = new Array<unknown>(this.stride).fill(REPEATED);
  }

  request(origin: string, request: R, authorization: string): Promise<PushAnswer> {
    if (this.closed) return Promise.resolve(TRANSPORT_CLOSED);
    const id = ++this.nextId;
    return new Promise((resolve) => {
      this.pending.set(id, { origin, resolve });
      if (this.pending.size === 1) this.worker?.ref();
      const { outbox, last, stride } = this;
      const start = outbox.length;
      outbox.push(id, origin, authorization);
      this.options.format.encode(request, outbox);
      // The id (at `start`) is new each time; the other values are compared with the
      // previous request's (none in a new message: `last` is reset to REPEATED, which no
      // value equals).
      for (let at = 1; at < stride; at++) {
        const value = outbox[start + at];
        if (typeof value === 'string' && value === last[at]) outbox[start + at] = REPEATED;
        else last[at] = value;
      }
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
    this.last.fill(REPEATED);
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
    this.last.fill(REPEATED);
    this.workerNow().postMessage(message);
  }

  private workerNow(): Worker {
    if (this.worker !== null) return this.worker;
    const { ca, maxConcurrentStreams, requestTimeoutMs } = this.options;
    const settings: WorkerSettings = { ca, maxConcurrentStreams, requestTimeoutMs };
    // No flags of the host's (`--input-type`, loaders, `--conditions`...): some are refused
    // in a worker, and the script, plain JavaScript with relative imports only, needs none.
    const worker = new Worker(this.options.script, { workerData: settings, execArgv: [] });
    worker.on('message', (message: FromWorker) => this.received(message));
    const stopped = (reason: string) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.reported = {};
      // What it was handed is lost with it (and retried as any lost stream); what is still
      // in the outbox goes to the next worker.
      const unsent = new Set<number>();
      for (let at = 0; at < this.outbox.length; at += this.stride) unsent.add(this.outbox[at] as number);
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

  private answer(id: number, answer: PushAnswer): void {
    const pending = this.pending.get(id);
    if (pending === undefined) return;
    this.pending.delete(id);
    pending.resolve(answer);
  }

  private answerAll(answer: PushAnswer, except: ReadonlySet<number> = new Set()): void {
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
