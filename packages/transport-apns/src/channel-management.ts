import { connect, constants, type ClientHttp2Session, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
import type { Clock } from '@tilecast/core';
import type { PushAnswer } from '@tilecast/core/push';
import type { ApnsEnvironment } from './registry.js';
import { apnsReason } from './request.js';

/**
 * APNs's channel management API (docs/contract/broadcast-channels.md#broadcast-channel-management-api),
 * on its own hosts (docs/contract/broadcast-channels.md#broadcast-management-hosts).
 *
 * A small `node:http2` client rather than `@tilecast/core/push`'s ConnectionPool: a
 * management answer is read from its headers (`apns-channel-id` of a creation) and its
 * body (a channel's policy, the list of channels), and the pool answers only a status, a
 * reason and `retry-after`. Management requests are rare (a start, an end, the start-up
 * sweep), so they need neither the pool's pacing nor the worker thread: one session per
 * host, on this thread, holding the process only while a request is out.
 */
export const APNS_MANAGE_ORIGINS: Readonly<Record<ApnsEnvironment, string>> = {
  production: 'https://api-manage-broadcast.push.apple.com:2196',
  sandbox: 'https://api-manage-broadcast.sandbox.push.apple.com:2195',
};

/** APNs's message storage policy: 1 keeps the latest message for offline devices, 0 keeps none. */
export type StoragePolicy = 0 | 1;

/**
 * What a management request came to: its value, or a failure shaped as
 * `@tilecast/core/push`'s answers, so that the shared retry rules read it.
 */
export type ManageAnswer<T> = { kind: 'ok'; value: T } | Exclude<PushAnswer, { kind: 'withdrawn' }>;

/** A channel as APNs describes it. */
export interface ChannelInfo {
  policy: StoragePolicy;
  pushType: string;
}

export interface ChannelManagementOptions {
  bundleId: string;
  /** The management origin of an environment (Apple's, or the `manageOrigin` option). */
  originOf: (environment: ApnsEnvironment) => string;
  ca?: string | Buffer | Array<string | Buffer>;
  requestTimeoutMs: number;
  clock: Clock;
}

/** An answer as received, before it is read as a management answer. */
type Received = { kind: 'received'; status: number; headers: IncomingHttpHeaders; text: string } | Exclude<PushAnswer, { kind: 'answer' | 'withdrawn' }>;

/** An answer's body is a small JSON object; more than this is not read. */
const MAX_BODY_BYTES = 1 << 20;

export class ChannelManagement {
  private readonly sessions = new Map<string, ClientHttp2Session>();
  /** Requests out per session: a session holds the process only while it has one. */
  private readonly active = new Map<ClientHttp2Session, number>();
  private closed = false;

  constructor(private readonly options: ChannelManagementOptions) {}

  /** `POST /1/apps/<bundle>/channels`: `201` with the new channel's id in `apns-channel-id`. */
  async create(environment: ApnsEnvironment, policy: StoragePolicy, authorization: string): Promise<ManageAnswer<string>> {
    const body = JSON.stringify({ 'message-storage-policy': policy, 'push-type': 'LiveActivity' });
    const got = await this.request(environment, { ':method': 'POST', ':path': this.path('channels') }, authorization, body);
    if (got.kind !== 'received') return got;
    if (got.status !== 201) return refusal(got);
    const id = got.headers['apns-channel-id'];
    return typeof id === 'string' && id !== ''
      ? { kind: 'ok', value: id }
      : { kind: 'answer', status: got.status, reason: 'no apns-channel-id', retryAfter: null };
  }

  /** `GET /1/apps/<bundle>/channels` with `apns-channel-id`: the channel's policy and push type. */
  async read(environment: ApnsEnvironment, channelId: string, authorization: string): Promise<ManageAnswer<ChannelInfo>> {
    const got = await this.request(environment, { ':method': 'GET', ':path': this.path('channels'), 'apns-channel-id': channelId }, authorization);
    if (got.kind !== 'received') return got;
    if (got.status !== 200) return refusal(got);
    const parsed = parse(got.text);
    const policy = parsed?.['message-storage-policy'];
    const pushType = parsed?.['push-type'];
    if ((policy !== 0 && policy !== 1) || typeof pushType !== 'string') return unreadable(got);
    return { kind: 'ok', value: { policy, pushType } };
  }

  /** `GET /1/apps/<bundle>/all-channels`: the ids of the app's channels in that environment. */
  async list(environment: ApnsEnvironment, authorization: string): Promise<ManageAnswer<string[]>> {
    const got = await this.request(environment, { ':method': 'GET', ':path': this.path('all-channels') }, authorization);
    if (got.kind !== 'received') return got;
    if (got.status !== 200) return refusal(got);
    const channels = parse(got.text)?.channels;
    if (!Array.isArray(channels) || !channels.every((id) => typeof id === 'string')) return unreadable(got);
    return { kind: 'ok', value: channels as string[] };
  }

  /** `DELETE /1/apps/<bundle>/channels` with `apns-channel-id`: `204`. */
  async delete(environment: ApnsEnvironment, channelId: string, authorization: string): Promise<ManageAnswer<null>> {
    const got = await this.request(environment, { ':method': 'DELETE', ':path': this.path('channels'), 'apns-channel-id': channelId }, authorization);
    if (got.kind !== 'received') return got;
    return got.status === 204 || got.status === 200 ? { kind: 'ok', value: null } : refusal(got);
  }

  /** Ends every session; requests out answer `network`, and every request from now on. */
  close(): void {
    this.closed = true;
    for (const session of this.sessions.values()) session.destroy();
    this.sessions.clear();
  }

  private path(resource: 'channels' | 'all-channels'): string {
    return `/1/apps/${this.options.bundleId}/${resource}`;
  }

  private request(environment: ApnsEnvironment, headers: OutgoingHttpHeaders, authorization: string, body?: string): Promise<Received> {
    if (this.closed) return Promise.resolve({ kind: 'network', error: 'transport closed' });
    const { clock, requestTimeoutMs } = this.options;
    return new Promise((resolve) => {
      let session: ClientHttp2Session;
      let settled = false;
      let timer: unknown;
      const settle = (answer: Received) => {
        if (settled) return;
        settled = true;
        if (timer !== undefined) clock.clearTimeout(timer);
        this.release(session);
        resolve(answer);
      };
      try {
        session = this.sessionTo(this.options.originOf(environment));
      } catch (error) {
        resolve({ kind: 'network', error: String(error) });
        return;
      }
      this.take(session);
      const outgoing: OutgoingHttpHeaders = { ...headers, authorization };
      if (body !== undefined) outgoing['content-type'] = 'application/json';
      let stream: ReturnType<ClientHttp2Session['request']>;
      try {
        stream = session.request(outgoing);
      } catch (error) {
        settle({ kind: 'network', error: String(error) });
        return;
      }
      timer = clock.setTimeout(() => {
        settle({ kind: 'timeout' });
        stream.close(constants.NGHTTP2_CANCEL);
      }, requestTimeoutMs);
      let status = 0;
      let responseHeaders: IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('response', (received) => {
        status = Number(received[':status']);
        responseHeaders = received;
      });
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      });
      const answered = () => settle({ kind: 'received', status, headers: responseHeaders, text: Buffer.concat(chunks).toString('utf8') });
      stream.on('end', () => status !== 0 && answered());
      stream.on('error', (error) => settle({ kind: 'network', error: error.message }));
      stream.on('close', () => (status !== 0 ? answered() : settle({ kind: 'network', error: 'stream closed without an answer' })));
      stream.end(body);
    });
  }

  /** The session to `origin`: the open one, or a new one when it was lost (the next request reconnects). */
  private sessionTo(origin: string): ClientHttp2Session {
    const current = this.sessions.get(origin);
    if (current !== undefined && !current.closed && !current.destroyed) return current;
    const session = connect(origin, this.options.ca === undefined ? {} : { ca: this.options.ca });
    const forget = () => {
      if (this.sessions.get(origin) === session) this.sessions.delete(origin);
    };
    session.on('error', forget);
    session.on('goaway', forget);
    session.on('close', forget);
    session.unref();
    this.sessions.set(origin, session);
    return session;
  }

  private take(session: ClientHttp2Session): void {
    const count = (this.active.get(session) ?? 0) + 1;
    this.active.set(session, count);
    if (count === 1 && !session.destroyed) session.ref();
  }

  private release(session: ClientHttp2Session): void {
    const count = (this.active.get(session) ?? 1) - 1;
    if (count > 0) return void this.active.set(session, count);
    this.active.delete(session);
    if (!session.destroyed) session.unref();
  }
}

/** A refusal: its status, APNs's reason (`{"reason": ...}`) and `retry-after`. */
function refusal(got: Extract<Received, { kind: 'received' }>): ManageAnswer<never> {
  const retryAfter = got.headers['retry-after'];
  return { kind: 'answer', status: got.status, reason: apnsReason(got.status, got.text), retryAfter: typeof retryAfter === 'string' ? retryAfter : null };
}

/** A success whose body cannot be read: a refusal of its own, not retried. */
function unreadable(got: Extract<Received, { kind: 'received' }>): ManageAnswer<never> {
  return { kind: 'answer', status: got.status, reason: 'unreadable answer body', retryAfter: null };
}

function parse(text: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
