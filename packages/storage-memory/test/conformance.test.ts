import { expect, it } from 'vitest';
import { runStorageConformance } from '@tilecast/storage-conformance';
import { createMemoryStorage } from '@tilecast/storage-memory';

// One process, one store: the peer handle is the store itself (the default).
runStorageConformance({ name: 'memory', create: () => createMemoryStorage() });

// `countEvents` is optional in the contract (the suite checks it where present): this store has it.
it('has the optional countEvents (the event-log size of metrics)', () => {
  expect(typeof createMemoryStorage().countEvents).toBe('function');
});

// The audience of a claiming write is optional in the contract (the suite checks it where
// returned; docs/decisions/0119-audience-in-the-write.md): this store returns it.
it('returns the audience read by a write that claims its job (activity and widget)', async () => {
  const storage = createMemoryStorage();
  const hash = (n: number) => n.toString(16).padStart(64, '0');
  await storage.upsertAccount({ id: 'acme', tokenHash: hash(1), subscription: 'active', activityQuota: 5 });
  await storage.upsertAccount({ id: 'guest', tokenHash: hash(2), subscription: 'active', activityQuota: 5 });
  await storage.upsertDevice({ id: 'phone-b', accountId: 'acme', tokenHash: hash(3) });
  await storage.upsertDevice({ id: 'phone-a', accountId: 'acme', tokenHash: hash(4) });
  await storage.upsertDevice({ id: 'phone-c', accountId: 'guest', tokenHash: hash(5) });
  await storage.putActivity({ accountId: 'acme', slug: 'game', template: 'progress', dismissalDelayS: 0 });
  await storage.putWidget({ accountId: 'acme', slug: 'lights', template: 'switchboard', staleAfter: null, privacy: 'visible' });
  expect(await storage.shareWidget('acme', 'lights', 'phone-c')).toBe(true);
  const claim = { instanceId: 'here', leaseMs: 30_000 };
  const activity = await storage.applyActivityUpdate('acme', 'game', { state: 'ONGOING', content: {}, now: 1, claim });
  expect(activity).toMatchObject({ ok: true, audience: ['phone-a', 'phone-b'] });
  const widget = await storage.setWidgetContent('acme', 'lights', { content: {}, staleAfter: undefined, now: 1, claim });
  expect(widget).toMatchObject({ ok: true, audience: ['phone-a', 'phone-b', 'phone-c'] });
  // An account without devices: [], not nothing.
  await storage.putActivity({ accountId: 'guest', slug: 'game', template: 'progress', dismissalDelayS: 0 });
  await storage.deleteDevice('phone-c');
  const alone = await storage.applyActivityUpdate('guest', 'game', { state: 'ONGOING', content: {}, now: 1, claim });
  expect(alone).toMatchObject({ ok: true, audience: [] });
});
