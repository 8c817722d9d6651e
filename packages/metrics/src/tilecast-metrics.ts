import type { Clock, Observer } from '@tilecast/core';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { registerDeliveryJobGauges, type DeliveryJobCounts } from './delivery-gauges.js';
import { deadLetterReasonLabel, methodLabel, statusLabel, transportLabel } from './labels.js';
import { registerTransportEvents, type CountingTransport } from './transport-events.js';

export interface TilecastMetricsOptions {
  /**
   * The prom-client registry to add Tilecast's metrics to (your app's, to serve them with
   * yours). Default: a new registry. Each metric name can be registered once per registry,
   * so call `createTilecastMetrics` once per registry (one per Tilecast instance).
   */
  registry?: Registry;
  /**
   * The store, read on each scrape: `countEvents()` for `tilecast_event_log_events`, and
   * `deliveryJobStats()` for `tilecast_delivery_jobs_pending` and
   * `tilecast_delivery_oldest_job_age_seconds` (both Tilecast stores have them). A gauge
   * whose method the store lacks is not registered.
   */
  storage?: { countEvents?(): Promise<number>; deliveryJobStats?(): Promise<DeliveryJobCounts> };
  /** The time the oldest job's age is measured against. Default: the system clock. */
  clock?: Pick<Clock, 'now'>;
  /** Prepended to every metric name. Default `tilecast_`. */
  prefix?: string;
  /**
   * Transports that count what they do (`@tilecast/transport-apns`'s), for
   * `tilecast_transport_events_total`: their `counters()` are read on each scrape.
   */
  transports?: readonly CountingTransport[];
}

export interface TilecastMetrics {
  /** The registry holding the metrics: serve `await registry.metrics()` as `registry.contentType`. */
  registry: Registry;
  /** Pass it to `createTilecast({ observer })` (with `combineObservers` beside a request logger). */
  observer: Observer;
}

/** Request latencies in seconds: from a cached publish (under a millisecond) to a store deadline (5 s). */
export const REQUEST_DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Tilecast's Prometheus metrics, and the observer that moves them. Every label value is
 * bounded (route patterns, fixed outcomes); none carries a token, an id or a path.
 */
export function createTilecastMetrics(options: TilecastMetricsOptions = {}): TilecastMetrics {
  const registry = options.registry ?? new Registry();
  const prefix = options.prefix ?? 'tilecast_';
  const registers = [registry];

  const requests = new Counter({
    name: `${prefix}http_requests_total`,
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  });
  const durations = new Histogram({
    name: `${prefix}http_request_duration_seconds`,
    help: 'Time to answer an HTTP request (an event stream: to its headers), by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: REQUEST_DURATION_BUCKETS,
    registers,
  });
  const pushes = new Counter({
    name: `${prefix}device_pushes_total`,
    help: 'Pushes to one device through one transport, by transport, kind (activity, widget) and outcome as it happened (delivered, not_connected, skipped, superseded, token_removed, refused, dropped, failed).',
    labelNames: ['transport', 'kind', 'outcome'] as const,
    registers,
  });
  const webhookAttempts = new Counter({
    name: `${prefix}webhook_attempts_total`,
    help: 'Webhook delivery attempts, by attempt number (1, 2) and outcome (success, http_error, timeout, network_error, blocked).',
    labelNames: ['attempt', 'outcome'] as const,
    registers,
  });
  const webhookDeliveries = new Counter({
    name: `${prefix}webhook_deliveries_total`,
    help: 'Whole webhook deliveries, by outcome (success, failure) and the attempts they took.',
    labelNames: ['outcome', 'attempts'] as const,
    registers,
  });
  const streams = new Gauge({
    name: `${prefix}open_streams`,
    help: 'Event streams (GET /events) and device streams (GET /device/stream) open on this instance, by kind (events, device).',
    labelNames: ['kind'] as const,
    registers,
  });
  const presses = new Counter({
    name: `${prefix}presses_total`,
    help: 'Presses (POST /device/presses) by outcome: accepted, duplicate, limited (429), refused (other 4xx), failed (5xx).',
    labelNames: ['outcome'] as const,
    registers,
  });
  const storeErrors = new Counter({
    name: `${prefix}store_errors_total`,
    help: 'Times the store could not answer a request or a readiness probe, by kind: deadline (a deadline was missed) or unavailable.',
    labelNames: ['kind'] as const,
    registers,
  });
  const jobsEnded = new Counter({
    name: `${prefix}delivery_jobs_ended_total`,
    help: 'Delivery jobs this instance stopped working on, by kind (activity, widget) and outcome: done, stopped (superseded by a newer update, or taken over), released (given back at shutdown), failed (the store failed; resumed once its lease lapses).',
    labelNames: ['kind', 'outcome'] as const,
    registers,
  });
  const jobsResumed = new Counter({
    name: `${prefix}delivery_jobs_resumed_total`,
    help: "Delivery jobs this instance resumed after another instance's lease lapsed (a crash, a kill), by kind; counted when this instance stops working on them.",
    labelNames: ['kind'] as const,
    registers,
  });
  const deadLetters = new Counter({
    name: `${prefix}dead_letters_total`,
    help: 'Pushes that failed for good and were kept as dead letters, by transport, kind and reason: refused (the push service said no), dropped (given up: retries used up), failed (the transport threw), other. The full reason is in the dead letter (tilecast deliveries --failed).',
    labelNames: ['transport', 'kind', 'reason'] as const,
    registers,
  });
  // Zero from the start, so a rate over a fresh instance is 0 rather than absent.
  for (const kind of ['events', 'device']) streams.set({ kind }, 0);
  for (const kind of ['deadline', 'unavailable']) storeErrors.inc({ kind }, 0);
  for (const kind of ['activity', 'widget']) {
    jobsResumed.inc({ kind }, 0);
    for (const outcome of ['done', 'stopped', 'released', 'failed']) jobsEnded.inc({ kind, outcome }, 0);
  }

  if (options.transports !== undefined && options.transports.length > 0)
    registerTransportEvents(registry, `${prefix}transport_events_total`, options.transports);

  const countEvents = options.storage?.countEvents?.bind(options.storage);
  if (countEvents !== undefined) registerEventLogGauge(registry, `${prefix}event_log_events`, countEvents);
  const deliveryJobStats = options.storage?.deliveryJobStats?.bind(options.storage);
  if (deliveryJobStats !== undefined) registerDeliveryJobGauges(registry, prefix, deliveryJobStats, options.clock ?? { now: Date.now });

  const observer: Observer = {
    requestFinished({ method, route, status, durationMs }) {
      const labels = { method: methodLabel(method), route, status: statusLabel(status) };
      requests.inc(labels);
      durations.observe(labels, durationMs / 1000);
    },
    pushSettled({ transport, kind, outcome }) {
      pushes.inc({ transport: transportLabel(transport), kind, outcome });
    },
    webhookAttempt({ attempt, outcome }) {
      webhookAttempts.inc({ attempt: String(attempt), outcome });
    },
    webhookDelivered({ outcome, attempts }) {
      webhookDeliveries.inc({ outcome, attempts: String(attempts) });
    },
    streamOpened({ kind }) {
      streams.inc({ kind });
    },
    streamClosed({ kind }) {
      streams.dec({ kind });
    },
    press({ outcome }) {
      presses.inc({ outcome });
    },
    storeError({ kind }) {
      storeErrors.inc({ kind });
    },
    deliveryJobEnded({ kind, outcome, resumed }) {
      jobsEnded.inc({ kind, outcome });
      if (resumed) jobsResumed.inc({ kind });
    },
    deadLettered({ transport, kind, reason }) {
      deadLetters.inc({ transport: transportLabel(transport), kind, reason: deadLetterReasonLabel(reason) });
    },
  };
  return { registry, observer };
}

/**
 * The event-log size, read from the store when scraped. A store that cannot answer leaves
 * the last value (the outage shows in `store_errors_total` and `/readyz`), so a scrape
 * never fails because of it.
 */
function registerEventLogGauge(registry: Registry, name: string, countEvents: () => Promise<number>): void {
  new Gauge({
    name,
    help: 'Events the store holds over every account (expired ones until purged), read from the store on each scrape.',
    registers: [registry],
    async collect() {
      try {
        this.set(await countEvents());
      } catch {
        // Keep the last value: see above.
      }
    },
  });
}
