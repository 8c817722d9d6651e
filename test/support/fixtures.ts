import type { Tilecast } from '@tilecast/core';

export interface Fixture {
  acme: string;
  other: string;
  unsubscribed: string;
  deviceToken: string;
  /** Device of `other`, with `acme`'s `lights` widget shared to it. */
  guestToken: string;
}

/** Three accounts: `acme` (quota 2, a device, one resource per template kind), `other`, and one without subscription. */
export async function seedFixture(tilecast: Tilecast): Promise<Fixture> {
  const m = tilecast.management;
  const { token: acme } = await m.createAccount({ id: 'acme', activityQuota: 2 });
  const { token: other } = await m.createAccount({ id: 'other' });
  const { token: unsubscribed } = await m.createAccount({ id: 'lapsed', subscription: 'none' });
  const { token: deviceToken } = await m.registerDevice({ id: 'acme-phone', account: 'acme' });
  const { token: guestToken } = await m.registerDevice({ id: 'guest-phone', account: 'other' });
  await m.createActivity({ account: 'acme', slug: 'build', template: 'progress', dismissalDelayS: 30 });
  await m.createActivity({ account: 'acme', slug: 'deploy', template: 'progress' });
  await m.createActivity({ account: 'acme', slug: 'release', template: 'progress' });
  await m.createActivity({ account: 'acme', slug: 'temps', template: 'monitor' });
  await m.createActivity({ account: 'acme', slug: 'legacy', template: 'generic' });
  await m.createWidget({ account: 'acme', slug: 'lights', template: 'switchboard' });
  await m.createWidget({ account: 'acme', slug: 'boiler', template: 'gauge', staleAfter: 3600 });
  await m.shareWidget('acme', 'lights', 'guest-phone');
  await m.createActivity({ account: 'other', slug: 'secret', template: 'progress' });
  await m.createWidget({ account: 'other', slug: 'secret-widget', template: 'gauge' });
  return { acme, other, unsubscribed, deviceToken, guestToken };
}

export const progressUpdate = (value = 0.5, state: 'ONGOING' | 'IDLE' = 'ONGOING') => ({
  state,
  content: { template: 'progress', progress: { value } },
});

export const gaugeContent = (value = 21.5) => ({ template: 'gauge', value, unit: '°C', label: 'Boiler' });

export const switchboardContent = () => ({
  template: 'switchboard',
  title: 'Home',
  actions: [
    { id: 'hall', label: 'Hall light', kind: 'toggle', on: false, icon: 'lightbulb' },
    { id: 'bell', label: 'Doorbell' },
  ],
});

/** A logger that keeps every line, so tests can grep logs for secrets. */
export function createCapturingLogger(): { logger: import('@tilecast/core').Logger; lines: string[] } {
  const lines: string[] = [];
  const keep = (level: string) => (message: string, fields?: Record<string, unknown>) => void lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
  return { logger: { info: keep('info'), warn: keep('warn'), error: keep('error') }, lines };
}

/** `"k0":0,"k1":0,…`: `count` unknown keys as JSON members, for bodies that must be refused. */
export const unknownMembers = (count: number) => Array.from({ length: count }, (_, i) => `"k${i}":0`).join(',');
