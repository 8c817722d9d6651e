import { setMaxListeners } from 'node:events';
/**
 * Webhook delivery (docs/contract/events-and-webhooks.md#webhook-routing, docs/contract/events-and-webhooks.md#webhook-attempts,
 * docs/contract/events-and-webhooks.md#webhook-delivery-background). `dispatch` returns at
 * once: the delivery runs in the background, so a slow or dead receiver never delays the
 * publisher API, the event stream or other receivers. `idle()` awaits what was started.
 *
 * Per event: the entry keyed by its action id, else `*`, else nothing; one instance wins
 * the storage claim for (event, entry); at most two attempts; the outcome of the whole
 * delivery is recorded once on the entry.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { SafeObserver, WebhookAttemptObservation } from '../observer.js';
import type { StoredEvent } from '../storage/records.js';
import type { Storage } from '../storage/storage.js';
import { createGuardedAgent, type AddressPolicy, type WebhookConnectionOptions } from './address-guard.js';
import { sendAttempt, type AttemptResult } from './attempt.js';
import { buildRequest, readEnvelope } from './request.js';
import { isSuccess, MAX_ATTEMPTS, retryDelay } from './retry-policy.js';
import { entryFor } from './stored-map.js';
import type { ActionEnvelope } from './template.js';
import type { WebhookEntryConfig } from './map-schema.js';
import { isoTime } from '../iso-time.js';

/** What a host sets of webhook delivery: `TilecastOptions.webhooks`. */
export interface WebhookOptions extends WebhookConnectionOptions {
  /** Identifies this instance in delivery claims. Default: a random UUID. */
  instanceId?: string;
  /**
   * Test deployments only (`TILECAST_WEBHOOK_ALLOW_PRIVATE=1`): targets may be loopback or
   * private; `https://` and port 443 still apply. Off by default; a warning is logged when on.
   */
  allowPrivateNetworks?: boolean;
}

export interface WebhookDispatcherOptions extends WebhookOptions {
  storage: Storage;
  clock: Clock;
  logger: Logger;
  /** Told of each attempt and each whole delivery (metrics). */
  observer?: SafeObserver;
}

export interface WebhookDispatcher {
  /** The host policy that `PUT /widget/{slug}/webhooks` applies too. */
  readonly allowPrivateNetworks: boolean;
  /**
   * Delivers `event` (already appended to the log of `accountId`) to the matching entry of
   * widget `widgetSlug`'s webhook map. Returns at once; never throws.
   */
  dispatch(accountId: string, widgetSlug: string, event: StoredEvent): void;
  /** Resolves once every delivery started so far has finished. */
  idle(): Promise<void>;
  /** Aborts deliveries in flight and ignores later dispatches. */
  close(): void;
}

type Outcome = { ok: true; attempts: number; status: number } | { ok: false; attempts: number; reason: string };

export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const { storage, clock, logger, observer } = options;
  const instanceId = options.instanceId ?? randomUUID();
  const policy: AddressPolicy = { allowPrivateNetworks: options.allowPrivateNetworks ?? false };
  if (policy.allowPrivateNetworks) logger.warn('webhooks may target private and loopback addresses: for test deployments only');
  const agentOptions = { resolve: options.resolve, ca: options.ca, unsafeTestOnlyDial: options.unsafeTestOnlyDial, ...policy };
  const agent = createGuardedAgent(agentOptions);
  // A retry always resolves and checks the destination afresh, on a new connection: the
  // name may now point elsewhere, and a failed connection should not be reused.
  const retryAgent = createGuardedAgent({ ...agentOptions, keepAlive: false });
  const closing = new AbortController();
  // Every delivery in flight listens to it: hundreds at once is normal, not a leak.
  setMaxListeners(0, closing.signal);
  const running = new Set<Promise<void>>();

  // A promise step first, not an async function: every press comes here, and most
  // widgets have no webhooks, so for most the lookup is all there is to do.
  const deliver = (accountId: string, slug: string, event: StoredEvent): Promise<void> =>
    storage.getWebhookMap(accountId, slug).then((raw) => (raw === null || isEmpty(raw) ? undefined : deliverTo(raw, accountId, slug, event)));

  const deliverTo = async (raw: Record<string, unknown>, accountId: string, slug: string, event: StoredEvent): Promise<void> => {
    const envelope = readEnvelope(event.envelope);
    if (envelope === null) return logger.error('webhook: event has no widget.action.v1 envelope', { event_id: event.id });
    const target = entryFor(raw, envelope.data.action);
    if (target === null) return;
    const now = clock.now();
    if (now >= event.expiresAt) return;
    if (!(await storage.claimWebhookDelivery(event.id, target.key, { instanceId, now, expiresAt: event.expiresAt }))) return;

    const outcome = await attemptAll(target.entry, envelope, event);
    if (closing.signal.aborted) return; // cut short by shutdown: not the receiver's outcome
    await storage.recordWebhookOutcome(accountId, slug, target.key, {
      outcome: outcome.ok ? 'success' : 'failure',
      at: isoTime(clock.now()),
    });
    observer?.webhookDelivered({ outcome: outcome.ok ? 'success' : 'failure', attempts: outcome.attempts });
    const fields = { account: accountId, slug, entry: target.key, event_id: event.id, ...outcome };
    if (outcome.ok) logger.info('webhook delivered', fields);
    else logger.warn('webhook delivery failed', fields);
  };

  const attemptAll = async (entry: WebhookEntryConfig, envelope: ActionEnvelope, event: StoredEvent): Promise<Outcome> => {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const request = buildRequest(entry, envelope, event.envelope, policy, clock.now());
      if (request === null) {
        observer?.webhookAttempt({ attempt, outcome: 'blocked' });
        return { ok: false, attempts: attempt, reason: 'blocked' };
      }
      const result = await sendAttempt(request, { agent: attempt === 1 ? agent : retryAgent, clock, signal: closing.signal });
      if (!closing.signal.aborted) observer?.webhookAttempt({ attempt, outcome: attemptOutcome(result) });
      if (isSuccess(result)) return { ok: true, attempts: attempt, status: result.status };
      const wait = retryDelay(result, attempt, clock.now(), event.expiresAt);
      if (wait === null || closing.signal.aborted) return { ok: false, attempts: attempt, reason: describe(result) };
      if (wait > 0) await sleep(clock, wait, closing.signal);
    }
    return { ok: false, attempts: MAX_ATTEMPTS, reason: 'exhausted' }; // not reached: the last attempt never retries
  };

  return {
    allowPrivateNetworks: policy.allowPrivateNetworks,
    dispatch(accountId, widgetSlug, event) {
      if (closing.signal.aborted) return;
      // One promise per event (every press dispatches, most to no webhook at all).
      const task: Promise<void> = deliver(accountId, widgetSlug, event).then(
        () => void running.delete(task),
        (error: unknown) => {
          running.delete(task);
          logger.error('webhook delivery crashed', { slug: widgetSlug, event_id: event.id, error: String(error) });
        },
      );
      running.add(task);
    },
    async idle() {
      await Promise.all([...running]);
    },
    close() {
      closing.abort();
      agent.destroy();
      retryAgent.destroy();
    },
  };
}

function isEmpty(map: Record<string, unknown>): boolean {
  for (const key in map) if (Object.hasOwn(map, key)) return false;
  return true;
}

/** An attempt's result as metrics count it. */
function attemptOutcome(result: AttemptResult): WebhookAttemptObservation['outcome'] {
  switch (result.kind) {
    case 'response':
      return isSuccess(result) ? 'success' : 'http_error';
    case 'network':
      return 'network_error';
    default:
      return result.kind;
  }
}

/** Status or failure kind, for the operator's log. Never the address or the receiver's body. */
function describe(result: AttemptResult): string {
  switch (result.kind) {
    case 'response':
      return `status ${result.status}`;
    case 'network':
      return `network ${result.code}`;
    default:
      return result.kind;
  }
}

/** Waits on the injected clock; ends early when `signal` aborts. */
function sleep(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clock.clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = clock.setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
