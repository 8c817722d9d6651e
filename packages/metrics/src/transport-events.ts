import { Counter, type Registry } from 'prom-client';
import { transportLabel } from './labels.js';

/**
 * A transport that counts what it does since it was made: `@tilecast/transport-apns`'s and
 * `@tilecast/transport-fcm`'s `counters()` (`sent`, `retried`, `dropped`, `tokensRemoved`, ...).
 */
export interface CountingTransport {
  /** Its name in metrics (`apns`), as for `tilecast_device_pushes_total`. Default `host`. */
  readonly name?: string;
  /** Counts by name (an object of numbers; an interface such as `ApnsCounters` fits). */
  counters(): object;
}

/** At most this many events per transport: a counter set is small and fixed, never a map of ids. */
const MAX_EVENTS = 32;

/** `tokensRemoved` → `tokens_removed`; null for a name that is not a short identifier. */
export function eventLabel(counter: string): string | null {
  if (!/^[a-z][a-zA-Z0-9]{0,31}$/.test(counter)) return null;
  return counter.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/**
 * `name{transport, event}`: each transport's counters as they are when scraped, so an
 * outage shows as it happens (retries, drops and reconnects climbing, sends flat). Read
 * from the transports rather than told per push: they already count, and a scrape costs
 * one call per transport. Only whole, non-negative counts whose names are identifiers
 * become samples, at most MAX_EVENTS per transport: the labels stay a small fixed set.
 */
export function registerTransportEvents(registry: Registry, name: string, transports: readonly CountingTransport[]): void {
  new Counter({
    name,
    help: 'What each push transport did since it started, read from its counters on each scrape, by transport and event (apns: sent, retried, dropped, tokens_removed, skipped, superseded, timeouts, reconnects, provider_tokens, and for broadcast channels broadcasts_sent, broadcasts_failed, channels_created, channels_deleted, channel_limit_hits, orphans_deleted; fcm: the first eight with access_tokens for provider_tokens, and content_left_out). Events are not alike: sum them per event, never across events.',
    labelNames: ['transport', 'event'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const transport of transports) {
        const labels = { transport: transportLabel(transport.name ?? 'host') };
        let events = 0;
        for (const [counter, value] of Object.entries(transport.counters()) as Array<[string, unknown]>) {
          const event = eventLabel(counter);
          if (event === null || typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) continue;
          if (++events > MAX_EVENTS) break;
          this.inc({ ...labels, event }, value);
        }
      }
    },
  });
}
