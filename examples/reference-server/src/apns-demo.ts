import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApnsDouble, type ApnsDouble, type ReceivedPush } from '@tilecast/transport-apns/test-double';

/** Made-up ids: the double checks the JWT's `kid` and `iss` and the topics against them. */
export const DEMO_APNS_IDS = { teamId: 'DEMOTEAM01', keyId: 'DEMOKEY001', bundleId: 'com.example.tilecast' } as const;
/** The tokens the walk-through registers for the demo phone, as an iPhone would get them from iOS. */
export const DEMO_PUSH_TOKENS = { pushToStart: 'a1'.repeat(32), widgets: 'c3'.repeat(32), update: 'b2'.repeat(32) } as const;

export interface ApnsDemo {
  double: ApnsDouble;
  /** Where the `.p8` and the CA were written. */
  dir: string;
  /** The settings to start the reference server with. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * The APNs side of the walk-through (README "APNs against the test double"): a fresh
 * P-256 signing key written as a `.p8`, the test double on 127.0.0.1 checking signatures
 * against its public half, and the double's CA written for `TILECAST_APNS_CA_FILE`.
 */
export async function startApnsDemo(): Promise<ApnsDemo> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const double = await startApnsDouble({ ...DEMO_APNS_IDS, publicKey });
  const dir = await mkdtemp(join(tmpdir(), 'tilecast-apns-demo-'));
  const keyFile = join(dir, `AuthKey_${DEMO_APNS_IDS.keyId}.p8`);
  const caFile = join(dir, 'apns-double-ca.pem');
  await writeFile(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), { mode: 0o600 });
  await writeFile(caFile, double.ca);
  return {
    double,
    dir,
    env: {
      TILECAST_APNS_KEY_FILE: keyFile,
      TILECAST_APNS_KEY_ID: DEMO_APNS_IDS.keyId,
      TILECAST_APNS_TEAM_ID: DEMO_APNS_IDS.teamId,
      TILECAST_APNS_BUNDLE_ID: DEMO_APNS_IDS.bundleId,
      TILECAST_APNS_ORIGIN: double.origin,
      TILECAST_APNS_CA_FILE: caFile,
    },
    async close() {
      await double.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The settings a demo tells to start the reference server with: its transport's (APNs or FCM), the port
 * the curl lines use, and the demo account (whose tokens the walk-through uses; on with a
 * `DATABASE_URL` too).
 */
export function demoServerSettings(apnsEnv: Record<string, string>, port: number): Record<string, string> {
  return { PORT: String(port), TILECAST_DEMO: '1', ...apnsEnv };
}

/** What the demo prints: how to start the server (`settings`), then the curl lines of the loop, to `baseUrl`. */
export function apnsDemoInstructions(env: Record<string, string>, baseUrl = `http://127.0.0.1:${env.PORT ?? '8080'}`): string {
  const settings = Object.entries(env).map(([name, value]) => `${name}=${value}`);
  const { pushToStart, widgets, update } = DEMO_PUSH_TOKENS;
  return [
    `APNs test double listening on ${env.TILECAST_APNS_ORIGIN}`,
    '',
    '1. In another terminal, start the reference server with these settings:',
    `   ${settings.join(' \\\n   ')} \\\n   npm start`,
    '',
    '2. Set TOKEN and DEVICE to the demo API token and device token it prints (on a terminal), then register',
    "   the demo phone's APNs tokens (what the iOS app does at launch):",
    `   curl -X PUT ${baseUrl}/device/push -H "Authorization: Device $DEVICE" -H 'Content-Type: application/json' -d '${JSON.stringify({ environment: 'sandbox', push_to_start: pushToStart, widgets })}'`,
    '',
    '3. Start the demo activity: the double receives a signed liveactivity "start" push:',
    `   curl -X PATCH ${baseUrl}/activity/build -H "Authorization: Token $TOKEN" -H 'Content-Type: application/json' -d '${JSON.stringify({ state: 'ONGOING', content: { template: 'progress', progress: { value: 0.4 } } })}'`,
    '',
    '4. The Live Activity reports its update token; the next PATCH is an "update" push to it:',
    `   curl -X PUT ${baseUrl}/device/activities/demo/build/push -H "Authorization: Device $DEVICE" -H 'Content-Type: application/json' -d '${JSON.stringify({ token: update })}'`,
    `   curl -X PATCH ${baseUrl}/activity/build -H "Authorization: Token $TOKEN" -H 'Content-Type: application/json' -d '${JSON.stringify({ state: 'ONGOING', content: { template: 'progress', progress: { value: 0.8 } } })}'`,
    '',
    '5. A widget update is a WidgetKit "widgets" push:',
    `   curl -X PATCH ${baseUrl}/widget/boiler -H "Authorization: Token $TOKEN" -H 'Content-Type: application/json' -d '${JSON.stringify({ content: { template: 'gauge', value: 61.5, unit: 'C', label: 'Boiler' } })}'`,
    '',
    'Every push the double receives is printed below. Ctrl-C stops the double.',
  ].join('\n');
}

/** One received push, as the demo prints it (device tokens shortened). */
export function describePush(push: ReceivedPush): string {
  const jwt = push.jwt ? `ES256 kid=${String(push.jwt.header.kid)} iss=${String(push.jwt.claims.iss)}` : 'no valid JWT';
  return [
    `${push.status}${push.reason ? ` ${push.reason}` : ''} ${push.method} /3/device/${push.deviceToken.slice(0, 8)}… ${push.headers['apns-push-type'] ?? '?'} (${jwt})`,
    `    ${JSON.stringify(push.payload)}`,
  ].join('\n');
}
