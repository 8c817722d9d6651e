import type { ActivityPush, DeviceTransport, PushOutcome, PushReport, WidgetPush } from '@tilecast/core';
import {
  createPushPipeline,
  pushConnections,
  pushKey,
  pushTransportSettings,
  workerScriptPath,
  type PushBacklog,
  type PushTransportOptions,
} from '@tilecast/core/push';
import { AccessToken } from './access-token.js';
import { type FcmCounters, zeroCounters } from './counters.js';
import { fcmDeliveryRules } from './delivery.js';
import type { Job, Ticket } from './job.js';
import { MessageBuilder, type FcmPriority } from './message.js';
import type { FcmRegistry } from './registry.js';
import { FCM_FORMAT } from './request.js';
import { readServiceAccount, type FcmServiceAccount } from './service-account.js';

export type { FcmCounters } from './counters.js';

/** Google's hosts: FCM's send host, and the OAuth 2.0 token endpoint's origin (its path is `/token`). */
export const FCM_ORIGIN = 'https://fcm.googleapis.com';
export const TOKEN_ORIGIN = 'https://oauth2.googleapis.com';

export interface FcmTransportOptions extends PushTransportOptions {
  /** The Firebase project's service-account key file: its parsed JSON, or its text. Checked at creation. */
  serviceAccount: FcmServiceAccount | string;
  /** Where the devices' registration tokens are kept (`fcmRegistryFrom(storage)`). */
  registry: FcmRegistry;
  /** Replaces FCM's send host, `https://fcm.googleapis.com` (a test double on 127.0.0.1). */
  origin?: string;
  /** Replaces the token endpoint's origin, `https://oauth2.googleapis.com` (its path stays `/token`). */
  tokenOrigin?: string;
  /** `android.priority` of activity updates (default `normal`); start and end are always `high`. */
  updatePriority?: FcmPriority;
  /** `android.priority` of widget messages (default `normal`). */
  widgetPriority?: FcmPriority;
}

/** What `FcmTransport.backlog()` answers. */
export type FcmBacklog = PushBacklog;

export interface FcmTransport extends DeviceTransport {
  /**
   * Each push resolves with what came of it: `delivered` (`200`), `token_removed`,
   * `refused` (a `4xx` other than a token's, an access token refused), `dropped` (retries
   * used up, expired, the transport closed), each of these two with its reason (FCM's
   * error code: `{ outcome: 'refused', reason: 'INVALID_ARGUMENT' }`), `skipped`
   * (no registration token), `superseded` (a newer push for the same device and activity
   * or widget came before it was sent: docs/contract/android-fcm.md#fcm-latest-wins).
   */
  pushActivity(deviceId: string, push: ActivityPush): Promise<PushOutcome | PushReport>;
  pushWidget(deviceId: string, push: WidgetPush): Promise<PushOutcome | PushReport>;
  counters(): FcmCounters;
  /** Streams open and requests waiting, per origin. */
  load(): Record<string, { active: number; waiting: number }>;
  /**
   * The pushes the transport holds: `queued` for admission, `working`, `retrying` (waiting
   * to retry), and `keys`, the (device, activity or widget) pairs they are for. Newer
   * pushes replace older ones of the same pair, so none of these grows with the number of
   * updates, only with the pairs (docs/contract/android-fcm.md#fcm-latest-wins).
   */
  backlog(): FcmBacklog;
  /** Closes the connection and drops pushes waiting for a retry. */
  close(): Promise<void>;
}

/**
 * The transport: each push is stamped as the newest of its device and activity or widget,
 * paced, looked up in the registry (`skipped` without a token), built (message.ts) and
 * sent (delivery.ts) over a connection on a worker or this thread; a newer push replaces
 * an older one still waiting anywhere on that way. The pieces of `@tilecast/core/push`,
 * shared with the APNs transport.
 */
export function createFcmTransport(options: FcmTransportOptions): FcmTransport {
  const account = readServiceAccount(options.serviceAccount);
  const { registry } = options;
  const settings = pushTransportSettings(options);
  const { clock, logger } = settings;
  const counters = zeroCounters();
  const workerScript = () => workerScriptPath(import.meta.url, 'connection-worker');
  const connections = pushConnections({ name: 'fcm', format: FCM_FORMAT, workerScript, settings, counters });
  const accessToken = new AccessToken({
    account,
    tokenOrigin: options.tokenOrigin ?? TOKEN_ORIGIN,
    ca: options.ca,
    timeoutMs: settings.requestTimeoutMs,
    clock,
    logger,
    onIssued: () => void (counters.accessTokens += 1),
  });
  const builder = new MessageBuilder({
    projectId: account.projectId,
    updatePriority: options.updatePriority ?? 'normal',
    widgetPriority: options.widgetPriority ?? 'normal',
    clock,
  });

  /**
   * Looks the device's registration token up and builds the ticket's job: null without one.
   * A promise chain rather than an async function: one closure per push, no async frame.
   */
  const jobOf = (ticket: Ticket, leave: () => void): Promise<Job | null> =>
    registry.tokenOf(ticket.deviceId).then((token) => (token === null ? null : builder.job(ticket, token, leave)));

  const pushes = createPushPipeline<Ticket, Job>({
    connections,
    credential: accessToken,
    rules: fcmDeliveryRules({ origin: options.origin ?? FCM_ORIGIN, registry, counters, logger }),
    counters,
    settings,
    build: jobOf,
  });

  const activityTicket = (deviceId: string, push: ActivityPush): Ticket => {
    const message = builder.activity(push);
    return { deviceId, push, message, at: message.at, key: pushKey(deviceId, push), seq: 0 };
  };

  return {
    name: 'fcm',
    pushActivity: (deviceId, push: ActivityPush) => pushes.handOver(activityTicket(deviceId, push)),
    pushWidget: (deviceId, push: WidgetPush) =>
      pushes.handOver({ deviceId, push, message: builder.widget(push), at: null, key: pushKey(deviceId, push), seq: 0 }),
    counters: () => ({ ...counters }),
    load: () => connections.load(),
    backlog: () => pushes.backlog(),
    close: () => pushes.close(),
  };
}
