import { UNMATCHED_ROUTE } from '@tilecast/core';
import { createTilecastMetrics } from '@tilecast/metrics';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { Counter, Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';

/** The value of the sample of counter or gauge `name` with exactly these labels (0 when absent). */
async function sample(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric ${name}`);
  const { values } = await metric.get();
  const same = (found: Partial<Record<string, string | number>>) =>
    Object.keys(found).length === Object.keys(labels).length && Object.entries(labels).every(([key, value]) => found[key] === value);
  return values.find((value) => same(value.labels))?.value ?? 0;
}

describe('createTilecastMetrics', () => {
  it('counts a request by method, route pattern and status, and observes its duration in seconds', async () => {
    const { registry, observer } = createTilecastMetrics();
    observer.requestFinished!({ method: 'PATCH', route: '/widget/{slug}', status: 200, durationMs: 3, accountId: 'acme' });
    observer.requestFinished!({ method: 'PATCH', route: '/widget/{slug}', status: 200, durationMs: 40, accountId: 'acme' });
    observer.requestFinished!({ method: 'GET', route: UNMATCHED_ROUTE, status: 404, durationMs: 1, accountId: null });
    const labels = { method: 'PATCH', route: '/widget/{slug}', status: '200' };
    expect(await sample(registry, 'tilecast_http_requests_total', labels)).toBe(2);
    expect(await sample(registry, 'tilecast_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    const text = await registry.metrics();
    expect(text).toContain('tilecast_http_request_duration_seconds_bucket{le="0.005",method="PATCH",route="/widget/{slug}",status="200"} 1');
    expect(text).toContain('tilecast_http_request_duration_seconds_bucket{le="0.05",method="PATCH",route="/widget/{slug}",status="200"} 2');
    expect(text).toContain('tilecast_http_request_duration_seconds_sum{method="PATCH",route="/widget/{slug}",status="200"} 0.043');
    // The account id is for logs: never a label.
    expect(text).not.toContain('acme');
  });

  it('keeps labels bounded: an unknown method or a strange transport name becomes "other"', async () => {
    const { registry, observer } = createTilecastMetrics();
    observer.requestFinished!({ method: 'BREW', route: UNMATCHED_ROUTE, status: 405, durationMs: 1, accountId: null });
    observer.pushSettled!({ transport: 'https://push.example.com/secret', kind: 'widget', outcome: 'delivered' });
    expect(await sample(registry, 'tilecast_http_requests_total', { method: 'other', route: 'unmatched', status: '405' })).toBe(1);
    expect(await sample(registry, 'tilecast_device_pushes_total', { transport: 'other', kind: 'widget', outcome: 'delivered' })).toBe(1);
    expect(await registry.metrics()).not.toContain('example.com');
  });

  it('counts pushes, webhook attempts and deliveries, presses and store errors; tracks open streams', async () => {
    const { registry, observer } = createTilecastMetrics();
    observer.pushSettled!({ transport: 'device_stream', kind: 'widget', outcome: 'delivered' });
    observer.pushSettled!({ transport: 'apns', kind: 'activity', outcome: 'failed' });
    observer.webhookAttempt!({ attempt: 1, outcome: 'http_error' });
    observer.webhookAttempt!({ attempt: 2, outcome: 'success' });
    observer.webhookDelivered!({ outcome: 'success', attempts: 2 });
    observer.press!({ outcome: 'accepted' });
    observer.press!({ outcome: 'limited' });
    observer.storeError!({ kind: 'deadline' });
    observer.streamOpened!({ kind: 'events' });
    observer.streamOpened!({ kind: 'events' });
    observer.streamOpened!({ kind: 'device' });
    observer.streamClosed!({ kind: 'events' });

    expect(await sample(registry, 'tilecast_device_pushes_total', { transport: 'device_stream', kind: 'widget', outcome: 'delivered' })).toBe(1);
    expect(await sample(registry, 'tilecast_device_pushes_total', { transport: 'apns', kind: 'activity', outcome: 'failed' })).toBe(1);
    expect(await sample(registry, 'tilecast_webhook_attempts_total', { attempt: '1', outcome: 'http_error' })).toBe(1);
    expect(await sample(registry, 'tilecast_webhook_attempts_total', { attempt: '2', outcome: 'success' })).toBe(1);
    expect(await sample(registry, 'tilecast_webhook_deliveries_total', { outcome: 'success', attempts: '2' })).toBe(1);
    expect(await sample(registry, 'tilecast_presses_total', { outcome: 'accepted' })).toBe(1);
    expect(await sample(registry, 'tilecast_presses_total', { outcome: 'limited' })).toBe(1);
    expect(await sample(registry, 'tilecast_store_errors_total', { kind: 'deadline' })).toBe(1);
    expect(await sample(registry, 'tilecast_store_errors_total', { kind: 'unavailable' })).toBe(0);
    expect(await sample(registry, 'tilecast_open_streams', { kind: 'events' })).toBe(1);
    expect(await sample(registry, 'tilecast_open_streams', { kind: 'device' })).toBe(1);
  });

  it("adds its metrics to the embedder's registry, beside the embedder's own", async () => {
    const registry = new Registry();
    const own = new Counter({ name: 'shop_orders_total', help: 'Orders.', registers: [registry] });
    own.inc();
    const metrics = createTilecastMetrics({ registry });
    expect(metrics.registry).toBe(registry);
    metrics.observer.press!({ outcome: 'duplicate' });
    const text = await registry.metrics();
    expect(text).toContain('shop_orders_total 1');
    expect(text).toContain('tilecast_presses_total{outcome="duplicate"} 1');
  });

  it('reads the event-log size from the store on each scrape', async () => {
    const storage = createMemoryStorage();
    const { registry } = createTilecastMetrics({ storage });
    expect(await sample(registry, 'tilecast_event_log_events')).toBe(0);
    const event = (id: string) => ({ id, subject: 'widget/lights', type: 'widget.action.v1', expiresAt: Date.now() + 60_000, envelope: { id } });
    await storage.appendEvent('acme', event('e1'));
    await storage.appendEvent('globex', event('e2'));
    expect(await sample(registry, 'tilecast_event_log_events')).toBe(2);
  });

  it('has no event-log gauge without a store that counts events, and a failing count keeps the last value', async () => {
    expect(createTilecastMetrics().registry.getSingleMetric('tilecast_event_log_events')).toBeUndefined();
    expect(createTilecastMetrics({ storage: {} }).registry.getSingleMetric('tilecast_event_log_events')).toBeUndefined();
    let answer: () => Promise<number> = async () => 7;
    const { registry } = createTilecastMetrics({ storage: { countEvents: () => answer() } });
    expect(await sample(registry, 'tilecast_event_log_events')).toBe(7);
    answer = () => Promise.reject(new Error('store down'));
    expect(await sample(registry, 'tilecast_event_log_events')).toBe(7);
  });

  it('counts delivery jobs by kind and outcome as they end, and the resumed ones', async () => {
    const { registry, observer } = createTilecastMetrics();
    // Zero from the start: a rate over a fresh instance is 0, not absent.
    expect(await sample(registry, 'tilecast_delivery_jobs_ended_total', { kind: 'widget', outcome: 'failed' })).toBe(0);
    expect((await registry.metrics()).match(/^tilecast_delivery_jobs_ended_total\{/gm)).toHaveLength(8);
    observer.deliveryJobEnded!({ kind: 'widget', outcome: 'done', resumed: false });
    observer.deliveryJobEnded!({ kind: 'widget', outcome: 'done', resumed: true });
    observer.deliveryJobEnded!({ kind: 'activity', outcome: 'released', resumed: false });
    observer.deliveryJobEnded!({ kind: 'activity', outcome: 'stopped', resumed: true });
    expect(await sample(registry, 'tilecast_delivery_jobs_ended_total', { kind: 'widget', outcome: 'done' })).toBe(2);
    expect(await sample(registry, 'tilecast_delivery_jobs_ended_total', { kind: 'activity', outcome: 'released' })).toBe(1);
    expect(await sample(registry, 'tilecast_delivery_jobs_ended_total', { kind: 'activity', outcome: 'stopped' })).toBe(1);
    expect(await sample(registry, 'tilecast_delivery_jobs_resumed_total', { kind: 'widget' })).toBe(1);
    expect(await sample(registry, 'tilecast_delivery_jobs_resumed_total', { kind: 'activity' })).toBe(1);
  });

  it('counts dead letters by transport, kind and the class of their reason only, so the labels stay a small fixed set', async () => {
    const { registry, observer } = createTilecastMetrics();
    observer.deadLettered!({ transport: 'apns', kind: 'activity', reason: 'refused: BadTopic' });
    observer.deadLettered!({ transport: 'apns', kind: 'activity', reason: 'refused: PayloadTooLarge' });
    observer.deadLettered!({ transport: 'apns', kind: 'widget', reason: 'dropped: retries used up' });
    observer.deadLettered!({ transport: 'apns', kind: 'widget', reason: 'failed: connect ECONNREFUSED 10.0.0.7:443' });
    observer.deadLettered!({ transport: 'apns', kind: 'widget', reason: 'token abc123 was rejected' });
    observer.deadLettered!({ transport: 'https://push.example.com/secret', kind: 'widget', reason: 'Refused: x' });
    const count = (transport: string, kind: string, reason: string) => sample(registry, 'tilecast_dead_letters_total', { transport, kind, reason });
    expect(await count('apns', 'activity', 'refused')).toBe(2);
    expect(await count('apns', 'widget', 'dropped')).toBe(1);
    expect(await count('apns', 'widget', 'failed')).toBe(1);
    expect(await count('apns', 'widget', 'other')).toBe(1);
    expect(await count('other', 'widget', 'other')).toBe(1);
    const text = await registry.metrics();
    for (const detail of ['BadTopic', 'ECONNREFUSED', '10.0.0.7', 'abc123', 'example.com']) expect(text).not.toContain(detail);
  });

  it('reads the pending delivery jobs and the age of the oldest from the store, once per scrape', async () => {
    let now = 1_000_000;
    let counts: { pending: number; oldestCreatedAt: number | null } = { pending: 0, oldestCreatedAt: null };
    let reads = 0;
    const storage = {
      deliveryJobStats: async () => {
        reads++;
        return counts;
      },
    };
    const { registry } = createTilecastMetrics({ storage, clock: { now: () => now } });
    expect(await registry.metrics()).toMatch(/^tilecast_delivery_jobs_pending 0$[\s\S]*^tilecast_delivery_oldest_job_age_seconds 0$/m);
    expect(reads).toBe(1);
    counts = { pending: 12, oldestCreatedAt: now - 95_500 };
    const text = await registry.metrics();
    expect(text).toContain('tilecast_delivery_jobs_pending 12\n');
    expect(text).toContain('tilecast_delivery_oldest_job_age_seconds 95.5\n');
    expect(reads).toBe(2);
    now += 10_000;
    expect(await sample(registry, 'tilecast_delivery_oldest_job_age_seconds')).toBe(105.5);
  });

  it('keeps the last delivery job values when the store fails or does not answer within 2 s, and the scrape succeeds', async () => {
    vi.useFakeTimers();
    try {
      let answer: () => Promise<{ pending: number; oldestCreatedAt: number | null }> = async () => ({ pending: 4, oldestCreatedAt: 0 });
      const { registry } = createTilecastMetrics({ storage: { deliveryJobStats: () => answer() }, clock: { now: () => 30_000 } });
      expect(await registry.metrics()).toMatch(/^tilecast_delivery_jobs_pending 4$[\s\S]*^tilecast_delivery_oldest_job_age_seconds 30$/m);
      answer = () => Promise.reject(new Error('store down'));
      expect(await sample(registry, 'tilecast_delivery_jobs_pending')).toBe(4);
      answer = () => new Promise(() => {});
      const scrape = registry.metrics();
      await vi.advanceTimersByTimeAsync(1_999);
      let done = false;
      void scrape.then(() => (done = true));
      await vi.advanceTimersByTimeAsync(0);
      expect(done).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      const text = await scrape;
      expect(text).toContain('tilecast_delivery_jobs_pending 4\n');
      expect(text).toContain('tilecast_delivery_oldest_job_age_seconds 30\n');
    } finally {
      vi.useRealTimers();
    }
  });

  it('has no delivery job gauges without a store that counts them', () => {
    for (const options of [{}, { storage: {} }, { storage: { countEvents: async () => 0 } }]) {
      const { registry } = createTilecastMetrics(options);
      expect(registry.getSingleMetric('tilecast_delivery_jobs_pending')).toBeUndefined();
      expect(registry.getSingleMetric('tilecast_delivery_oldest_job_age_seconds')).toBeUndefined();
    }
  });

  it("exports each transport's counters as they are at each scrape, by transport and event, with bounded labels", async () => {
    const counts: Record<string, unknown> = { sent: 3, retried: 1, tokensRemoved: 2, providerTokens: 1 };
    const apns = { name: 'apns', counters: () => counts };
    const unnamed = { counters: () => ({ sent: 7 }) };
    const { registry } = createTilecastMetrics({ transports: [apns, unnamed] });
    const event = (transport: string, name: string) => sample(registry, 'tilecast_transport_events_total', { transport, event: name });
    expect([
      await event('apns', 'sent'),
      await event('apns', 'retried'),
      await event('apns', 'tokens_removed'),
      await event('apns', 'provider_tokens'),
    ]).toEqual([3, 1, 2, 1]);
    expect(await event('host', 'sent')).toBe(7);
    counts.sent = 5;
    counts.dropped = 4;
    expect([await event('apns', 'sent'), await event('apns', 'dropped')]).toEqual([5, 4]);
    // What is not a count under an identifier's name is left out: never a token, an id or text.
    Object.assign(counts, { 'token:aabbcc': 1, fraction: 0.5, negative: -1, text: 'x', Upper: 1 });
    const text = await registry.metrics();
    for (const left of ['aabbcc', 'fraction', 'negative', 'text', 'upper', 'Upper']) expect(text).not.toContain(left);
  });

  it('has no transport events without transports', () => {
    expect(createTilecastMetrics().registry.getSingleMetric('tilecast_transport_events_total')).toBeUndefined();
  });

  it('takes a prefix for every name', async () => {
    const { registry, observer } = createTilecastMetrics({ prefix: 'edge_' });
    observer.press!({ outcome: 'accepted' });
    expect(await sample(registry, 'edge_presses_total', { outcome: 'accepted' })).toBe(1);
  });
});
