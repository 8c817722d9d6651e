// The worker thread of `WorkerConnectionPool`: the HTTP/2 connections to APNs, their TLS
// and their garbage, away from the thread that answers the host's requests. It answers
// every request it is handed, in batches, and never exits on its own.
import { parentPort, workerData } from 'node:worker_threads';
import type { Clock } from '@tilecast/core';
import { ConnectionPool } from './connection-pool.js';
import { yieldToHost } from './thread-priority.js';
import { REQUEST_FIELDS, type AnswersMessage, type FromWorker, type RequestsMessage, type WorkerRequest, type WorkerSettings } from './worker-protocol.js';

const port = parentPort;
if (port === null) throw new Error('transport-apns: connection-worker runs only as a worker thread');
yieldToHost();

// Not the core's `systemClock`: importing the core would load all of it into the worker,
// for three functions.
const clock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
const post = (message: FromWorker) => port.postMessage(message);
const pool = new ConnectionPool({ ...(workerData as WorkerSettings), clock, onReconnect: (origin) => post({ type: 'reconnect', origin }) });

let answers: AnswersMessage['answers'] = [];
let flushScheduled = false;
const flush = () => {
  flushScheduled = false;
  post({ type: 'answers', answers, load: pool.load() });
  answers = [];
};

const scheduleFlush = () => {
  if (flushScheduled) return;
  flushScheduled = true;
  setImmediate(flush);
};

port.on('message', ({ requests }: RequestsMessage) => {
  for (let at = 0; at < requests.length; at += REQUEST_FIELDS) {
    const [id, origin, token, pushType, topic, priority, expiration, authorization, body] = requests.slice(at, at + REQUEST_FIELDS) as WorkerRequest;
    void pool.request(origin, { token, pushType, topic, priority, expiration, body }, authorization).then((answer) => {
      answers.push([id, answer]);
      scheduleFlush();
    });
  }
  // The streams these requests took are reported even when no answer comes soon.
  scheduleFlush();
});
