import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTestServiceAccount, startFcmDouble, type FcmDouble, type ReceivedMessage } from '@tilecast/transport-fcm/test-double';

/** A made-up Firebase project: the double checks the send path and the assertion against it. */
export const DEMO_FCM_PROJECT = 'tilecast-demo';
/** The registration token the walk-through registers for the demo phone, as an Android app would get it from Firebase. */
export const DEMO_FCM_TOKEN = 'demo-phone:APA91b-demo-registration-token';

export interface FcmDemo {
  double: FcmDouble;
  /** Where the service-account key file and the CA were written. */
  dir: string;
  /** The settings to start the reference server with. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * The FCM side of the walk-through (README "FCM against the test double"): a fresh
 * service account (an RSA key in Google's key-file format) written as a JSON file, the
 * test double on 127.0.0.1 serving both the token endpoint and `messages:send` and
 * checking the assertions against the account's public key, and the double's CA written
 * for `TILECAST_FCM_CA_FILE`.
 */
export async function startFcmDemo(): Promise<FcmDemo> {
  const account = makeTestServiceAccount({ projectId: DEMO_FCM_PROJECT });
  const double = await startFcmDouble({ projectId: DEMO_FCM_PROJECT, clientEmail: account.serviceAccount.client_email, publicKey: account.publicKey });
  const dir = await mkdtemp(join(tmpdir(), 'tilecast-fcm-demo-'));
  const credentialsFile = join(dir, 'service-account.json');
  const caFile = join(dir, 'fcm-double-ca.pem');
  await writeFile(credentialsFile, account.json, { mode: 0o600 });
  await writeFile(caFile, double.ca);
  return {
    double,
    dir,
    env: {
      TILECAST_FCM_CREDENTIALS_FILE: credentialsFile,
      TILECAST_FCM_ORIGIN: double.origin,
      TILECAST_FCM_TOKEN_ORIGIN: double.origin,
      TILECAST_FCM_CA_FILE: caFile,
    },
    async close() {
      await double.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** What the demo prints: how to start the server (`settings`), then the curl lines of the loop, to `baseUrl`. */
export function fcmDemoInstructions(env: Record<string, string>, baseUrl = `http://127.0.0.1:${env.PORT ?? '8080'}`): string {
  const settings = Object.entries(env).map(([name, value]) => `${name}=${value}`);
  const patch = (path: string, body: unknown) =>
    `   curl -X PATCH ${baseUrl}${path} -H "Authorization: Token $TOKEN" -H 'Content-Type: application/json' -d '${JSON.stringify(body)}'`;
  return [
    `FCM test double (token endpoint and messages:send) listening on ${env.TILECAST_FCM_ORIGIN}`,
    '',
    '1. In another terminal, start the reference server with these settings:',
    `   ${settings.join(' \\\n   ')} \\\n   npm start`,
    '',
    '2. Set TOKEN and DEVICE to the demo API token and device token it prints (on a terminal), then register',
    "   the demo phone's FCM registration token (what the Android app does at launch and when Firebase rotates it):",
    `   curl -X PUT ${baseUrl}/device/fcm -H "Authorization: Device $DEVICE" -H 'Content-Type: application/json' -d '${JSON.stringify({ token: DEMO_FCM_TOKEN })}'`,
    '',
    '3. Start the demo activity: the double receives an authorised data message, event "start":',
    patch('/activity/build', { state: 'ONGOING', content: { template: 'progress', progress: { value: 0.4 } } }),
    '',
    '4. Update it, then end it: "update", then "end" with its dismissal date:',
    patch('/activity/build', { state: 'ONGOING', content: { template: 'progress', progress: { value: 0.8 } } }),
    patch('/activity/build', { state: 'IDLE', content: { template: 'progress', progress: { value: 1 } } }),
    '',
    '5. A widget update is a "changed" message without content (the app fetches the widget):',
    patch('/widget/boiler', { content: { template: 'gauge', value: 61.5, unit: 'C', label: 'Boiler' } }),
    '',
    'Every message the double receives is printed below. Ctrl-C stops the double.',
  ].join('\n');
}

/** One received message, as the demo prints it (the registration token shortened, the access token never). */
export function describeMessage(message: ReceivedMessage): string {
  const to = message.registrationToken === null ? 'no token' : `${message.registrationToken.slice(0, 10)}…`;
  const android = (message.body as { message?: { android?: unknown } } | undefined)?.message?.android;
  return [
    `${message.status}${message.error ? ` ${message.error}` : ''} ${message.method} ${message.path} to ${to} (${message.accessToken === null ? 'no access token' : 'authorised'})`,
    `    android ${JSON.stringify(android)} data.tilecast ${JSON.stringify(message.data)}`,
  ].join('\n');
}
