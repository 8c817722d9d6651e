import type { StorageUnavailableError } from './errors.js';
import type { PushOutcome } from './transport/device-transport.js';
/**
 * What a Tilecast instance reports as it works, for metrics and request logs. The core
 * calls an `Observer` and knows nothing of what it feeds (`@tilecast/metrics` turns the
 * calls into Prometheus metrics; the reference server also writes a log line per request).
 *
 * No call ever carries a token, a header value, a body or a raw path: routes are patterns,
 * everything else is a small fixed set of values, and the only id is the account id of a
 * request (for logs; never suitable as a metric label). Every method is optional; without
 * an observer the core takes no time stamp and makes no object for any of this.
 */
export interface Observer {
  /** A request was answered (for an event stream: when its headers go out, not when it ends). */
  requestFinished?(request: RequestObservation): void;
  /** One push to one device through one transport settled. */
  pushSettled?(push: PushObservation): void;
  /** One HTTP attempt of a webhook delivery settled. */
  webhookAttempt?(attempt: WebhookAttemptObservation): void;
  /** A whole webhook delivery (one or two attempts) ended; recorded on the webhook entry. */
  webhookDelivered?(delivery: WebhookDeliveryObservation): void;
  /** An event stream (`GET /events`) or device stream (`GET /device/stream`) opened on this instance. */
  streamOpened?(stream: StreamObservation): void;
  /** A stream counted by `streamOpened` ended (client gone, lifetime, credential, drain). */
  streamClosed?(stream: StreamObservation): void;
  /** A `POST /device/presses` was answered. */
  press?(press: PressObservation): void;
  /** The store could not answer: a request got its `503`, or `/readyz` its `503 storage`. */
  storeError?(error: StoreErrorObservation): void;
  /** This instance stopped working on a delivery job (docs/contract/durable-delivery.md). */
  deliveryJobEnded?(job: DeliveryJobObservation): void;
  /** A push failed for good and was kept as a dead letter (docs/contract/durable-delivery.md#durable-dead-letters). */
  deadLettered?(letter: DeadLetterObservation): void;
}

export interface RequestObservation {
  /** Upper-case HTTP method as received (adapters pass what their server accepted). */
  method: string;
  /**
   * The route's pattern as `/openapi.json` documents it (`/widget/{slug}`, `/device/presses`),
   * or `UNMATCHED_ROUTE` for a path or method no route has. Never the requested path.
   */
  route: string;
  status: number;
  /** From the request reaching the core to its answer, in milliseconds (monotonic clock). */
  durationMs: number;
  /** The authenticated account (on the device API: the device's account), else null. */
  accountId: string | null;
}

/** The route label of a request no route matched (`404`, `405`): one value, whatever the path. */
export const UNMATCHED_ROUTE = 'unmatched';

export interface PushObservation {
  /** `device_stream` (this instance's `GET /device/stream`), or the host transport's `name` (`apns`; default `host`). */
  transport: string;
  kind: 'activity' | 'widget';
  /**
   * The device stream: `delivered` (handed to the device's open stream) or `not_connected`
   * (the device has no stream open on this instance). A host transport: the `PushOutcome`
   * its promise resolved with (`delivered` when it resolved with none), or `failed` when
   * it rejected.
   */
  outcome: PushOutcome | 'not_connected' | 'failed';
}

export interface WebhookAttemptObservation {
  /** 1 or 2 (at most two attempts per delivery). */
  attempt: number;
  /** `success` (2xx), `http_error` (any other status), `timeout`, `network_error`, `blocked` (address guard). */
  outcome: 'success' | 'http_error' | 'timeout' | 'network_error' | 'blocked';
}

export interface WebhookDeliveryObservation {
  outcome: 'success' | 'failure';
  /** How many attempts it took (1 or 2). */
  attempts: number;
}

export interface StreamObservation {
  kind: 'events' | 'device';
}

export interface PressObservation {
  /**
   * `accepted` (a new event), `duplicate` (a retry answered with its event id), `limited`
   * (`429`), `refused` (any other refusal: `401`, `404`, `422`...), `failed` (the store or a bug: `5xx`).
   */
  outcome: 'accepted' | 'duplicate' | 'limited' | 'refused' | 'failed';
}

export interface StoreErrorObservation {
  /** `deadline`: the store missed a deadline (a statement, a connection, `/readyz`'s wait); `unavailable`: any other outage. */
  kind: 'unavailable' | 'deadline';
}

export interface DeliveryJobObservation {
  kind: 'activity' | 'widget';
  /**
   * `done` (every device handed over), `stopped` (a newer update superseded it, or its
   * lease lapsed and another claimant took it over), `released` (shutdown gave it back),
   * `failed` (the store failed; the job stays and is claimed again once its lease lapses).
   */
  outcome: 'done' | 'stopped' | 'released' | 'failed';
  /** True when this instance had claimed it after another's lease lapsed. */
  resumed: boolean;
}

export interface DeadLetterObservation {
  /** The transport's name (`apns`...). */
  transport: string;
  kind: 'activity' | 'widget';
  /** The transport's reason (a small fixed set per transport, e.g. APNs's `reason` values). */
  reason: string;
}

/** Every method of an `Observer`. */
const OBSERVER_METHODS = [
  'requestFinished',
  'pushSettled',
  'webhookAttempt',
  'webhookDelivered',
  'streamOpened',
  'streamClosed',
  'press',
  'storeError',
  'deliveryJobEnded',
  'deadLettered',
] as const satisfies readonly (keyof Observer)[];

type ObserverMethod = (value: never) => void;

/** An observer with each method made by `make(name)`. */
function observerOf(make: (name: keyof Observer) => ObserverMethod): Required<Observer> {
  return Object.fromEntries(OBSERVER_METHODS.map((name) => [name, make(name)])) as Required<Observer>;
}

const methodOf = (observer: Observer, name: keyof Observer): ((value: unknown) => void) | undefined => observer[name] as ((value: unknown) => void) | undefined;

/** Observers called in turn, for a host that feeds metrics and logs from one instance. */
export function combineObservers(...observers: Observer[]): Observer {
  return observerOf((name) => (value: unknown) => {
    for (const observer of observers) methodOf(observer, name)?.call(observer, value);
  });
}

/** An observer with every method, each one unable to throw into the code that calls it. */
export type SafeObserver = Required<Observer>;

/**
 * The observer the core calls: every method present (absent ones do nothing), and a
 * throwing observer logged, never failing a request, a push or a delivery.
 */
export function safeObserver(observer: Observer, onError: (method: string, error: unknown) => void): SafeObserver {
  return observerOf((name) => (value: unknown) => {
    const method = methodOf(observer, name);
    if (method === undefined) return;
    try {
      method.call(observer, value);
    } catch (error) {
      onError(name, error);
    }
  });
}

/** How a store outage is counted: a missed deadline, or any other outage. */
export function storeErrorKind(error: StorageUnavailableError): StoreErrorObservation['kind'] {
  return error.deadline === true ? 'deadline' : 'unavailable';
}
