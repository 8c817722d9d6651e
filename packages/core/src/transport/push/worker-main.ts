import { parentPort, workerData } from 'node:worker_threads';
import type { Clock } from '../../clock.js';
import { ConnectionPool } from './connection-pool.js';
import type { PushRequest, RequestFormat } from './request-format.js';
import { yieldToHost } from './thread-priority.js';
import {
  REQUEST_HEAD,
  unrepeat,
  type AnswersMessage,
  type FromWorker,
  type RequestHead,
  type RequestsMessage,
  type WorkerSettings,
} from './worker-protocol.js';

/** The worker's time: real, and its timers hold the worker (which holds the process only while requests are pending). */
const workerClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * The body of a transport's connection-worker script (`WorkerConnectionPool`'s other
 * side): the HTTP/2 connections, their TLS and their garbage, away from the thread that
 * answers the host's requests, at a lower scheduling priority. It answers every request it
 * is handed, in batches, and never exits on its own. The script is a module of the
 * transport's that calls this with the `format` its pool was given, and nothing else.
 */
export function serveConnections<R extends PushRequest>(format: RequestFormat<R>): void {
  const port = parentPort;
  if (port === null) throw new Error('serveConnections runs only in a worker thread');
  yieldToHost();
  const post = (message: FromWorker) => port.postMessage(message);
  const pool = new ConnectionPool<R>({
    ...(workerData as WorkerSettings),
    format,
    clock: workerClock,
    random: Math.random,
    onReconnect: (origin) => post({ type: 'reconnect', origin }),
  });
  const stride = REQUEST_HEAD + format.fields;

  let accepted: AnswersMessage['accepted'] = [];
  let answers: AnswersMessage['answers'] = [];
  let flushScheduled = false;
  const flush = () => {
    flushScheduled = false;
    post({ type: 'answers', accepted, answers, load: pool.load() });
    accepted = [];
    answers = [];
  };
  const scheduleFlush = () => {
    if (flushScheduled) return;
    flushScheduled = true;
    setImmediate(flush);
  };

  port.on('message', ({ requests }: RequestsMessage) => {
    unrepeat(requests, stride);
    for (let at = 0; at < requests.length; at += stride) {
      const id = requests[at] as RequestHead[0];
      const origin = requests[at + 1] as RequestHead[1];
      const authorization = requests[at + 2] as RequestHead[2];
      void pool.request(origin, format.decode(requests, at + REQUEST_HEAD), authorization).then((answer) => {
        if (answer.kind === 'answer' && answer.status === 200) accepted.push(id);
        else answers.push([id, answer]);
        scheduleFlush();
      });
    }
    // The streams these requests took are reported even when no answer comes soon.
    scheduleFlush();
  });
}
