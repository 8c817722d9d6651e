import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { ActivityRecord, ActivityTransition, WidgetRecord } from '../storage/records.js';
import type { Storage } from '../storage/storage.js';
import { widgetKey } from '../storage/widget-key.js';
import type { ActivityPush, DeviceTransport } from '../transport/device-transport.js';
import { activityPush, widgetPush } from '../transport/pushes.js';

/** Widgets reach other devices at most once per widget in this window (docs/contract/device-api.md#widget-push-throttle). */
export const WIDGET_PUSH_WINDOW_MS = 2_000;

/**
 * Devices handed to the transport per turn of the event loop. How a fan-out is paced, as a
 * whole: docs/decisions/0058-apns-pacing.md.
 */
export const FANOUT_SLICE = 64;

/**
 * Pushes of one fan-out handed to the transport and not yet settled, at most. How a
 * fan-out is paced, as a whole: docs/decisions/0058-apns-pacing.md.
 */
export const FANOUT_WINDOW = 256;

/** Runs `then` in the next turn of the event loop, after pending I/O (not a delay, so not the injected clock). */
const nextTurn = (then: () => void): void => void (typeof setImmediate === 'function' ? setImmediate(then) : setTimeout(then, 0));

export interface DeviceFanout {
  /** Pushes an activity's new state to every device of its account (no-op for `none`). */
  activityChanged(activity: ActivityRecord, transition: ActivityTransition): void;
  /** Pushes a widget's latest content, throttled per widget. */
  widgetChanged(widget: WidgetRecord): void;
  /** Resolves once every push and trailing push started so far has settled (tests, shutdown). */
  idle(): Promise<void>;
  /** Cancels pending trailing pushes. */
  close(): void;
}

interface FanoutDeps {
  storage: Storage;
  transport: DeviceTransport;
  clock: Clock;
  logger: Logger;
  /**
   * False while no push can reach anyone (no transport of the host's, no device connected
   * to this instance's stream): then updates skip the fan-out. A device that connects
   * later starts from a snapshot of the latest content, so nothing is missed.
   */
  hasReceivers?: () => boolean;
}

/**
 * Sends accepted updates to devices in the background: the publisher's request never
 * waits for devices, and one failing device never fails the request nor the others.
 */
export function createDeviceFanout({ storage, transport, clock, logger, hasReceivers = () => true }: FanoutDeps): DeviceFanout {
  const inFlight = new Set<Promise<unknown>>();
  const timers = new Set<unknown>();

  const track = (work: Promise<unknown>): void => {
    const settled = work.catch((error: unknown) => logger.error('device push failed', { error: String(error) }));
    inFlight.add(settled);
    void settled.finally(() => inFlight.delete(settled));
  };

  /**
   * Hands every device to the transport, FANOUT_SLICE per turn of the event loop and at
   * most FANOUT_WINDOW not yet settled (pacing: docs/decisions/0058-apns-pacing.md), and
   * resolves once every push settled. Each pending
   * push costs one promise reaction and its failure handler here (no array of promises, no
   * wrapper promise per push); the window keeps the rest of a fan-out to ten thousand
   * devices as indexes into its list rather than as waiting pushes, so that what stays live
   * meanwhile, which every young-generation collection copies, stays small.
   */
  const sendEach = (deviceIds: readonly string[], send: (deviceId: string) => Promise<unknown>): Promise<void> =>
    new Promise((resolve) => {
      const total = deviceIds.length;
      let next = 0;
      let pending = 0;
      let done = 0;
      let scheduled = false;
      const schedule = () => {
        if (scheduled || next === total || pending >= FANOUT_WINDOW) return;
        scheduled = true;
        nextTurn(slice);
      };
      const settled = () => {
        pending -= 1;
        if (++done === total) resolve();
        else schedule();
      };
      const failed = (deviceId: string) => () => {
        logger.warn('push to a device failed', { deviceId });
        settled();
      };
      const slice = () => {
        scheduled = false;
        const end = Math.min(total, next + FANOUT_SLICE, next + FANOUT_WINDOW - pending);
        while (next < end) {
          const deviceId = deviceIds[next++]!;
          pending += 1;
          let sent: Promise<unknown>;
          try {
            sent = send(deviceId);
          } catch {
            failed(deviceId)();
            continue;
          }
          sent.then(settled, failed(deviceId));
        }
        schedule();
      };
      if (total === 0) resolve();
      else slice();
    });

  const pushActivity = async (activity: ActivityRecord, phase: ActivityPush['phase']): Promise<void> => {
    const deviceIds = await storage.listAccountDeviceIds(activity.accountId);
    const push = activityPush(activity, phase);
    await sendEach(deviceIds, (id) => transport.pushActivity(id, push));
  };

  const viewersOf = async (widget: WidgetRecord): Promise<string[]> => {
    const [own, shared] = await Promise.all([storage.listAccountDeviceIds(widget.accountId), storage.listWidgetShares(widget.accountId, widget.slug)]);
    return shared.length === 0 ? own : [...new Set([...own, ...shared])];
  };

  const pushWidget = async (widget: WidgetRecord, only?: string[]): Promise<void> => {
    if (widget.updatedAt === null) return;
    const viewers = await viewersOf(widget);
    const targets = only === undefined ? viewers : viewers.filter((id) => only.includes(id));
    const push = widgetPush(widget);
    await sendEach(targets, (id) => transport.pushWidget(id, push));
  };

  /**
   * A phone that pressed a tile in the last 15 s gets this update at once, throttle or
   * not, since it confirms its press; its note is used up so only the next update skips
   * the throttle.
   */
  const confirmPressers = async (widget: WidgetRecord, key: string): Promise<void> => {
    const pressers = await consumePressNotes(key);
    if (pressers.length > 0) await pushWidget(widget, pressers);
  };

  /** The phones with a pending press note on the widget; their notes are used up (set to expire now). */
  const consumePressNotes = async (key: string): Promise<string[]> => {
    const now = clock.now();
    const pressers = await storage.listRecentPressers(key, now);
    await Promise.all(pressers.map((deviceId) => storage.notePress({ widgetKey: key, deviceId, until: now })));
    return pressers;
  };

  /** At the window's end, whoever owns the trailing push sends the latest stored content. */
  const trailingPush = async (accountId: string, slug: string, key: string): Promise<void> => {
    if (!(await storage.claimTrailingPush(key, { now: clock.now(), windowMs: WIDGET_PUSH_WINDOW_MS }))) return;
    const latest = await storage.getWidget(accountId, slug);
    if (latest) await pushWidget(latest);
  };

  const throttledWidgetPush = async (widget: WidgetRecord): Promise<void> => {
    const key = widgetKey(widget.accountId, widget.slug);
    const claim = await storage.claimWidgetPush(key, { now: clock.now(), windowMs: WIDGET_PUSH_WINDOW_MS });
    if (claim.send === 'now') {
      // Everyone gets this update at once: pending confirmations are fulfilled by it.
      await consumePressNotes(key);
      return pushWidget(widget);
    }
    await confirmPressers(widget, key);
    if (claim.trailingScheduled) return;
    const handle = clock.setTimeout(
      () => {
        timers.delete(handle);
        track(trailingPush(widget.accountId, widget.slug, key));
      },
      Math.max(0, claim.at - clock.now()),
    );
    timers.add(handle);
  };

  return {
    activityChanged(activity, transition) {
      if (transition !== 'none' && hasReceivers()) track(pushActivity(activity, transition));
    },
    widgetChanged(widget) {
      if (hasReceivers()) track(throttledWidgetPush(widget));
    },
    async idle() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    close() {
      for (const handle of timers) clock.clearTimeout(handle);
      timers.clear();
    },
  };
}
