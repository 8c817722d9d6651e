// The worker thread of `WorkerConnectionPool`: the HTTP/2 connections to APNs, their TLS
// and their garbage, away from the thread that answers the host's requests. It answers
// every request it is handed, in batches, and never exits on its own.
import { parentPort, workerData } from 'node:worker_threads';
import type { Clock } from '@tilecast/core';
import { ConnectionPool } from './connection-pool.js';
import type { ApnsRequest } from './request.js';
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
const pool = new ConnectionPool({
  ...(workerData as WorkerSettings),
  clock,
  random: Math.random,
  onReconnect: (origin) => post({ type: 'reconnect', origin }),
});

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
  for (let at = 0; at < requests.length; at += REQUEST_FIELDS) {
    const id = requests[at] as WorkerRequest[0];
    const request: ApnsRequest = {
      key: requests[at + 2] as WorkerRequest[2],
      token: requests[at + 3] as WorkerRequest[3],
      pushType: requests[at + 4] as WorkerRequest[4],
      topic: requests[at + 5] as WorkerRequest[5],
      priority: requests[at + 6] as WorkerRequest[6],
      expiration: requests[at + 7] as WorkerRequest[7],
      body: requests[at + 9] as WorkerRequest[9],
    };
    void pool.request(requests[at + 1] as WorkerRequest[1], request, requests[at + 8] as WorkerRequest[8]).then((answer) => {
      if (answer.kind === 'answer' && answer.status === 200) accepted.push(id);
      else answers.push([id, answer]);
      scheduleFlush();
    });
  }
  // The streams these requests took are reported even when no answer comes soon.
  scheduleFlush();
});
