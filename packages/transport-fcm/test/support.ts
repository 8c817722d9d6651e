import type { ActivityPush, Logger, WidgetPush } from '@tilecast/core';
import { createFcmTransport, createMemoryFcmRegistry, type FcmTransport, type FcmTransportOptions, type MemoryFcmRegistry } from '@tilecast/transport-fcm';
import { makeTestServiceAccount, startFcmDouble, type FcmDouble, type TestServiceAccount } from '@tilecast/transport-fcm/test-double';
import { createManualClock, type ManualClock } from '../../../test/support/manual-clock.js';

export const PROJECT_ID = 'tilecast-test';

/** One service account for the whole file: an RSA key pair takes a while to make. */
let shared: TestServiceAccount | undefined;
export const testAccount = (): TestServiceAccount => (shared ??= makeTestServiceAccount({ projectId: PROJECT_ID }));

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  fields?: Record<string, unknown>;
}

export interface Rig {
  clock: ManualClock;
  double: FcmDouble;
  registry: MemoryFcmRegistry;
  transport: FcmTransport;
  account: TestServiceAccount;
  logs: LogLine[];
  close(): Promise<void>;
}

/** Registration tokens as FCM makes them (`<instance id>:<base64url>`). */
export const TOKENS = {
  phone: `cPhone123:APA91b${'P'.repeat(134)}`,
  other: `dOther456:APA91b${'O'.repeat(134)}`,
  fresh: `eFresh789:APA91b${'F'.repeat(134)}`,
};

/** Both places the connection can run: `main` puts request timeouts on the rig's fake clock. */
export const CONNECTION_THREADS = ['main', 'worker'] as const;

export const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

/** A transport pushing to a fresh double, on a fake clock; its connection on the main thread unless told otherwise. */
export async function rig(options: Partial<FcmTransportOptions> = {}, double: { accessTokenLifetimeS?: number } = {}): Promise<Rig> {
  const clock = createManualClock(T0);
  const account = testAccount();
  const fcm = await startFcmDouble({
    projectId: PROJECT_ID,
    clientEmail: account.serviceAccount.client_email,
    publicKey: account.publicKey,
    clock,
    ...double,
  });
  const registry = createMemoryFcmRegistry();
  registry.register('phone', TOKENS.phone);
  registry.register('other', TOKENS.other);
  const logs: LogLine[] = [];
  const logger: Logger = {
    info: (message, fields) => void logs.push({ level: 'info', message, fields }),
    warn: (message, fields) => void logs.push({ level: 'warn', message, fields }),
    error: (message, fields) => void logs.push({ level: 'error', message, fields }),
  };
  const transport = createFcmTransport({
    serviceAccount: account.json,
    registry,
    origin: fcm.origin,
    tokenOrigin: fcm.origin,
    ca: fcm.ca,
    clock,
    logger,
    random: () => 0.5,
    connectionThread: 'main',
    ...options,
  });
  return {
    clock,
    double: fcm,
    registry,
    transport,
    account,
    logs,
    async close() {
      await transport.close();
      await fcm.close();
    },
  };
}

export function activity(phase: ActivityPush['phase'], at: number, overrides: Partial<ActivityPush> = {}): ActivityPush {
  return {
    owner: 'acme',
    slug: 'delivery',
    phase,
    state: phase === 'end' ? 'IDLE' : 'ONGOING',
    content: { template: 'progress', progress: 0.5 },
    dismissal_delay_s: 30,
    template: 'progress',
    updated_at: new Date(at).toISOString(),
    ...overrides,
  };
}

export function widget(overrides: Partial<WidgetPush> = {}): WidgetPush {
  return {
    owner: 'acme',
    slug: 'boiler',
    content: { template: 'gauge', value: 40 },
    stale_after: null,
    updated_at: new Date(T0).toISOString(),
    privacy: 'visible',
    ...overrides,
  };
}

/** Lets I/O and promise chains run until `condition` holds (bounded: about 2 s). */
export async function until(condition: () => boolean, what = 'condition'): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Lets pending promise callbacks and immediate I/O callbacks run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}
