import type { PushAnswer } from './connection.js';
import type { ConnectionLoad } from './connection-pool.js';

/** What a connection worker is started with (`workerData`). */
export interface WorkerSettings {
  /** CAs to trust instead of Node's defaults. */
  ca?: string | Buffer | Array<string | Buffer>;
  /** Streams open at once per connection; further requests wait in order. */
  maxConcurrentStreams: number;
  /** A request without an answer after this long is cancelled (it answers `timeout`). */
  requestTimeoutMs: number;
}

/**
 * One request handed to the worker: REQUEST_HEAD values (its id, origin and
 * `authorization`), then the `RequestFormat`'s `fields` values, all consecutive in a
 * message's `requests` (no object per request on either side). Its answer comes back
 * under `id`.
 */
export type RequestHead = [id: number, origin: string, authorization: string];
export const REQUEST_HEAD = 3;

/**
 * In a message's `requests`, in place of a string equal to the one at the same place in
 * the request before it (a fan-out's origin, `authorization`, path, body or message tail):
 * each such string crosses once per message, not once per request. A `RequestFormat`
 * never encodes `undefined`, so it stands for nothing else.
 */
export const REPEATED = undefined;

/** Puts back, in place, the strings `requests` carries as REPEATED (`stride` values per request). */
export function unrepeat(requests: unknown[], stride: number): void {
  for (let at = stride; at < requests.length; at++) {
    if (requests[at] === REPEATED) requests[at] = requests[at - stride];
  }
}

/** To the worker: the requests of one turn of the event loop, in one message. */
export interface RequestsMessage {
  type: 'requests';
  /** Request after request, flat. */
  requests: unknown[];
}

/**
 * From the worker: the answers of one of its turns, and its streams then. Nearly every
 * answer is a `200`: those come as bare ids (one number each, nothing for the receiving
 * thread to build or collect per push), every other answer in full.
 */
export interface AnswersMessage {
  type: 'answers';
  /** Ids of the requests answered `200`. */
  accepted: number[];
  /** Every other answer, with its request's id. */
  answers: Array<[id: number, answer: PushAnswer]>;
  load: ConnectionLoad;
}

/** A `200`, as the receiving side hands it on for an id in `accepted` (one shared, frozen value). */
export const ACCEPTED: PushAnswer = Object.freeze({ kind: 'answer', status: 200, reason: null, retryAfter: null });

/** From the worker: a connection to `origin` replaced one that was lost. */
export interface ReconnectMessage {
  type: 'reconnect';
  origin: string;
}

export type FromWorker = AnswersMessage | ReconnectMessage;
