import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { Logger } from '@tilecast/core';
import type { ActivityPush, WidgetPush } from '@tilecast/core';
import {
  createApnsTransport,
  createMemoryApnsRegistry,
  type ApnsRegistry,
  type ApnsTransport,
  type ApnsTransportOptions,
  type MemoryApnsRegistry,
} from '@tilecast/transport-apns';
import { startApnsDouble, type ApnsDouble, type ApnsDoubleOptions } from '@tilecast/transport-apns/test-double';
import { createManualClock, type ManualClock } from '../../../test/support/manual-clock.js';
import type { ActivityTicket, WidgetTicket } from '../src/job.js';
import type { PushBuilder } from '../src/payloads.js';
import { pushKey } from '@tilecast/core/push';

export const TEAM_ID = 'TEAM123456';
export const KEY_ID = 'KEY7890ABC';
export const BUNDLE_ID = 'com.example.tilecast';

/** A test `.p8`: a P-256 key in PKCS#8 PEM, like Apple's. */
export function testSigningKey(): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  fields?: Record<string, unknown>;
}

export interface Rig {
  clock: ManualClock;
  double: ApnsDouble;
  registry: MemoryApnsRegistry;
  transport: ApnsTransport;
  logs: LogLine[];
  signingKey: string;
  close(): Promise<void>;
}

export const TOKENS = {
  start: 'aa'.repeat(32),
  update: 'bb'.repeat(32),
  widgets: 'cc'.repeat(32),
  otherStart: 'dd'.repeat(32),
  otherWidgets: 'ee'.repeat(32),
};

/** Both places the connections can run: `main` puts request timeouts on the rig's fake clock. */
export const CONNECTION_THREADS = ['main', 'worker'] as const;

/** A transport with the test ids pushing to `double`, every other option its default unless given. */
export function transportTo(
  double: ApnsDouble,
  registry: ApnsRegistry,
  signingKey: string | KeyObject,
  options: Partial<ApnsTransportOptions> = {},
): ApnsTransport {
  // No start-up channel sweep unless a test asks for one: its requests are not what most tests count.
  return createApnsTransport({
    teamId: TEAM_ID,
    keyId: KEY_ID,
    bundleId: BUNDLE_ID,
    signingKey,
    registry,
    origin: double.origin,
    ca: double.ca,
    channelSweep: false,
    ...options,
  });
}

/** A transport pushing to a fresh double (with `doubleOptions`); its connections on the main thread unless told otherwise. */
export async function rig(options: Partial<ApnsTransportOptions> = {}, doubleOptions: Partial<ApnsDoubleOptions> = {}): Promise<Rig> {
  const clock = createManualClock();
  const { privateKey, publicKey } = testSigningKey();
  const double = await startApnsDouble({ teamId: TEAM_ID, keyId: KEY_ID, bundleId: BUNDLE_ID, publicKey, clock, ...doubleOptions });
  const registry = createMemoryApnsRegistry();
  registry.register('phone', { environment: 'sandbox', pushToStart: TOKENS.start, widgets: TOKENS.widgets });
  registry.setActivityToken('phone', 'acme', 'build', TOKENS.update);
  registry.register('other', { environment: 'production', pushToStart: TOKENS.otherStart, widgets: TOKENS.otherWidgets });
  const logs: LogLine[] = [];
  const logger: Logger = {
    info: (message, fields) => void logs.push({ level: 'info', message, fields }),
    warn: (message, fields) => void logs.push({ level: 'warn', message, fields }),
    error: (message, fields) => void logs.push({ level: 'error', message, fields }),
  };
  const transport = transportTo(double, registry, privateKey, { clock, logger, random: () => 0.5, connectionThread: 'main', ...options });
  return {
    clock,
    double,
    registry,
    transport,
    logs,
    signingKey: privateKey,
    async close() {
      await transport.close();
      await double.close();
    },
  };
}

export const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

export function activity(phase: ActivityPush['phase'], at: number, overrides: Partial<ActivityPush> = {}): ActivityPush {
  return {
    owner: 'acme',
    slug: 'build',
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

/** An activity push as the transport hands it over to `deviceId` (its seq not stamped yet). */
export function activityTicket(builder: PushBuilder, push: ActivityPush, deviceId = 'phone'): ActivityTicket {
  const payload = builder.activityPayload(push);
  return { deviceId, push, payload, at: payload.at, key: pushKey(deviceId, push), seq: 0 };
}

/** A widget push as the transport hands it over to `deviceId` (its seq not stamped yet). */
export function widgetTicket(push: WidgetPush, deviceId = 'phone'): WidgetTicket {
  return { deviceId, push, payload: null, at: null, key: pushKey(deviceId, push), seq: 0 };
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
