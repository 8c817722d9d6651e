import type { Clock } from '../clock.js';
import { isStorageUnavailable } from '../errors.js';
import type { Logger } from '../logger.js';
import type { SafeObserver } from '../observer.js';
import type { DeadLetter, DeliveryKind } from '../storage/delivery-jobs.js';
import type { Storage } from '../storage/storage.js';
import type { ActivityPush, DeviceTransport, PushResult, WidgetPush } from '../transport/device-transport.js';
import { DEFAULT_TRANSPORT_NAME, outcomeOf, reasonOf, withBroadcast } from '../transport/observed-transport.js';

/** Dead letters waiting to be written, at most; beyond, they are counted in the log and not kept (a store outage must not grow memory). */
export const DEAD_LETTERS_BUFFERED = 10_000;

/**
 * The host's transport, with every push that failed for good noted as a dead letter
 * (docs/contract/durable-delivery.md#durable-dead-letters): `refused` and `dropped`
 * outcomes and rejections. A removed token is not one (`token_removed`), nor a push that
 * found nothing to send to (`skipped`), nor one that could not be tried because the store
 * did not answer (its token not read): the job runner sends that one again
 * (docs/contract/durable-delivery.md#durable-store-outage). The notes are written by
 * `flush`, which the job runner calls after each batch.
 */
export interface DeadLetterSink {
  readonly transport: DeviceTransport;
  flush(): Promise<void>;
  /**
   * Failures after this are not kept: at shutdown the transport drops what it has not sent,
   * and the released jobs send those devices again from another instance.
   */
  stop(): void;
}

export function collectDeadLetters(
  transport: DeviceTransport,
  deps: { storage: Storage; clock: Clock; logger: Logger; observer?: SafeObserver },
): DeadLetterSink {
  const { storage, clock, logger, observer } = deps;
  const name = transport.name ?? DEFAULT_TRANSPORT_NAME;
  let buffered: DeadLetter[] = [];
  let overflow = 0;
  let stopped = false;

  const note = (kind: DeliveryKind, deviceId: string, push: ActivityPush | WidgetPush, reason: string): void => {
    if (stopped) return;
    observer?.deadLettered({ transport: name, kind, reason });
    if (buffered.length >= DEAD_LETTERS_BUFFERED) {
      overflow += 1;
      return;
    }
    buffered.push({ accountId: push.owner, kind, slug: push.slug, deviceId, transport: name, reason, at: clock.now() });
  };

  const watch = (kind: DeliveryKind) => (deviceId: string, push: ActivityPush | WidgetPush, sent: Promise<PushResult>) =>
    sent.then(
      (result) => {
        const outcome = outcomeOf(result);
        if (outcome === 'refused' || outcome === 'dropped') {
          const reason = reasonOf(result);
          note(kind, deviceId, push, reason === outcome ? outcome : `${outcome}: ${reason}`);
        }
        return result;
      },
      (error: unknown) => {
        if (!isStorageUnavailable(error)) note(kind, deviceId, push, `failed: ${error instanceof Error ? error.message : String(error)}`.slice(0, 200));
        throw error;
      },
    );
  const activity = watch('activity');
  const widget = watch('widget');

  return {
    transport: withBroadcast(transport, {
      name,
      pushActivity: (deviceId, push) => activity(deviceId, push, transport.pushActivity(deviceId, push)),
      pushWidget: (deviceId, push) => widget(deviceId, push, transport.pushWidget(deviceId, push)),
    }),
    async flush() {
      if (overflow > 0) {
        logger.error('dead letters not kept: too many waiting to be written', { count: overflow });
        overflow = 0;
      }
      if (buffered.length === 0) return;
      const letters = buffered;
      buffered = [];
      try {
        await storage.addDeadLetters(letters);
      } catch (error) {
        // Kept for the next flush, within the bound.
        buffered = letters.concat(buffered).slice(0, DEAD_LETTERS_BUFFERED);
        logger.error('dead letters not written yet', { count: letters.length, error: String(error) });
      }
    },
    stop() {
      stopped = true;
    },
  };
}
