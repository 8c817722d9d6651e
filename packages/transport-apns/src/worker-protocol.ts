import type { ApnsAnswer } from './connection.js';
import type { ConnectionLoad } from './connection-pool.js';
import type { ApnsRequest } from './request.js';

/** What the connection worker is started with (`workerData`). */
export interface WorkerSettings {
  ca?: string | Buffer | Array<string | Buffer>;
  maxConcurrentStreams: number;
  requestTimeoutMs: number;
}

/**
 * One request handed to the worker, as REQUEST_FIELDS consecutive values of a message's
 * `requests` (no object per request on either side): its answer comes back under `id`.
 */
export type WorkerRequest = [
  id: number,
  origin: string,
  key: string,
  token: string,
  pushType: ApnsRequest['pushType'],
  topic: string,
  priority: ApnsRequest['priority'],
  expiration: number,
  authorization: string,
  body: string,
];
export const REQUEST_FIELDS = 10;

/** To the worker: the requests of one turn of the event loop, in one message. */
export interface RequestsMessage {
  type: 'requests';
  /** WorkerRequest after WorkerRequest, flat. */
  requests: Array<WorkerRequest[number]>;
}

/**
 * From the worker: the answers of one of its turns, and its streams then. Nearly every
 * answer is a `200`: those come as bare ids (one number each, nothing for the receiving
 * thread to build or collect per push), every other answer in full.
 */
export interface AnswersMessage {
  type: 'answers';
  /** Ids of the requests APNs answered `200`. */
  accepted: number[];
  /** Every other answer, with its request's id. */
  answers: Array<[id: number, answer: ApnsAnswer]>;
  load: ConnectionLoad;
}

/** A `200`, as the receiving side hands it on for an id in `accepted` (one shared, frozen value). */
export const ACCEPTED: ApnsAnswer = Object.freeze({ kind: 'answer', status: 200, reason: null, retryAfter: null });

/** From the worker: a connection to `origin` replaced one that was lost. */
export interface ReconnectMessage {
  type: 'reconnect';
  origin: string;
}

export type FromWorker = AnswersMessage | ReconnectMessage;
