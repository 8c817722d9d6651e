/**
 * `@tilecast/metrics`: Tilecast's Prometheus metrics (prom-client), moved by the core's
 * observer seam. `createTilecastMetrics({ registry, storage, transports })` → `{ registry, observer }`.
 */
export { createTilecastMetrics, REQUEST_DURATION_BUCKETS } from './tilecast-metrics.js';
export type { TilecastMetrics, TilecastMetricsOptions } from './tilecast-metrics.js';
export type { CountingTransport } from './transport-events.js';
export type { DeliveryJobCounts } from './delivery-gauges.js';
