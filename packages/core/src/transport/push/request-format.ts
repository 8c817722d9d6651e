import type { OutgoingHttpHeaders } from 'node:http2';

/** What every request of a push transport carries, whatever its service. */
export interface PushRequest {
  /**
   * The device and the activity or widget the push is for (`pushKey`): a newer request
   * with the same key takes the place of one still waiting for a stream
   * (docs/contract/apns.md#apns-latest-wins).
   */
  readonly key: string;
}

/**
 * What a transport's requests are made of, for the connections that send them (on the
 * transport's thread or in its connection worker): one object per transport, with no
 * state. The headers and body are made by the connection, on its thread, so that with a
 * worker the thread that answers the host's requests allocates none of them.
 */
export interface RequestFormat<R extends PushRequest> {
  /** The request's HTTP/2 headers (`:method`, `:path`, ...), with `authorization` as given. */
  headers(request: R, authorization: string): OutgoingHttpHeaders;
  /** The request's body. */
  body(request: R): string;
  /**
   * The reason a refusal gives, for the transport to act on and log (APNs: its body's
   * `reason`; FCM: its error code): `text` is the body as received (its first 8 KB, `''`
   * when empty). Called for answers other than `2xx` only (a success has no reason). Never
   * throws: an unreadable body gives null.
   */
  reason(status: number, text: string): string | null;
  /**
   * How a request crosses to the connection worker: as `fields` plain values (no object
   * per request on either side), pushed by `encode` and read back by `decode` from `at`.
   * The request's `key` crosses too (the worker's connections withdraw by it). No value
   * is `undefined` (it marks a string repeated from the request before: worker-protocol.ts).
   */
  readonly fields: number;
  encode(request: R, into: unknown[]): void;
  decode(from: readonly unknown[], at: number): R;
}
