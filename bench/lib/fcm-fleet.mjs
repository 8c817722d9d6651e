// What the FCM scenarios (F1, F2) share: the project, the service account, the devices'
// registration tokens and the connection settings both senders use, so that the bare
// client and Tilecast's transport push the same requests to the same test double.
import { createHash } from 'node:crypto';
import { makeTestServiceAccount } from '@tilecast/transport-fcm/test-double';

/** The Firebase project both senders send for and the double checks. */
export const FCM_PROJECT = 'tilecast-bench';

/**
 * HTTP/2 connections and streams open at once on each, for both senders: transport-fcm's
 * defaults (one connection, 100 streams), which the bare client copies.
 */
export const CONNECTIONS = 1;
export const STREAMS = 100;

/** F1: one widget update to this many devices with a registration token. */
export const F1_DEVICES = 10_000;

/** F2, a mixed fleet: this many iPhones (an APNs WidgetKit token each) and this many Android phones (a registration token each). */
export const F2_APNS_DEVICES = 5_000;
export const F2_FCM_DEVICES = 5_000;

/** The registration token of device `n` (FCM's shape: an instance id, a colon, 140 characters). */
export const registrationToken = (n) => `d${n}:APA91b${createHash('sha256').update(`fcm-${n}`).digest('base64url').repeat(4).slice(0, 134)}`;

/** A fresh service account for a run: the senders sign with it, the double checks its public key. */
export const serviceAccount = () => makeTestServiceAccount({ projectId: FCM_PROJECT });

/** The environment that points a sender (bare or Tilecast) at the double. */
export const senderEnv = (double, account) => ({ BENCH_FCM_ORIGIN: double.origin, BENCH_FCM_CA: double.ca, BENCH_FCM_ACCOUNT: account.json });
