import { createMemoryStorage } from '@tilecast/storage-memory';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../../test/support/manual-clock.js';
import { createRecordingTransport, type Storage } from '../../src/index.js';
import { LEASE_MS, activityPatch, tilecastWithJobs, widgetPatch } from './fanout-write-fixtures.js';
import type { WriteClaimTerms } from '../../src/storage/delivery-jobs.js';

/**
 * A memory store that records the claim each content write was given and counts the
 * separate claims (`claimDeliveryJob`).
 */
function watchedStorage() {
  const storage = createMemoryStorage();
  const writeClaims: (WriteClaimTerms | undefined)[] = [];
  let separateClaims = 0;
  /** While set, an activity write's answer waits for it (after the write is stored). */
  const hold: { until?: Promise<void> } = {};
  const watched: Storage = new Proxy(storage, {
    get(target, key, receiver) {
      if (key === 'applyActivityUpdate')
        return async (accountId: string, slug: string, update: Parameters<Storage['applyActivityUpdate']>[2]) => {
          writeClaims.push(update.claim);
          const result = await target.applyActivityUpdate(accountId, slug, update);
          await hold.until;
          return result;
        };
      if (key === 'setWidgetContent')
        return (accountId: string, slug: string, update: Parameters<Storage['setWidgetContent']>[2]) => {
          writeClaims.push(update.claim);
          return target.setWidgetContent(accountId, slug, update);
        };
      if (key === 'claimDeliveryJob')
        return (...args: Parameters<Storage['claimDeliveryJob']>) => {
          separateClaims += 1;
          return target.claimDeliveryJob(...args);
        };
      return Reflect.get(target, key, receiver);
    },
  });
  return { storage: watched, writeClaims, hold, separateClaims: () => separateClaims };
}

async function setup(withTransport: boolean) {
  const clock = createManualClock();
  const store = watchedStorage();
  const transport = createRecordingTransport();
  const tilecast = tilecastWithJobs(store.storage, clock, withTransport ? transport : undefined);
  const { token } = await tilecast.management.createAccount({ id: 'acme' });
  await tilecast.management.registerDevice({ id: 'phone', account: 'acme' });
  await tilecast.management.createWidget({ account: 'acme', slug: 'lights', template: 'switchboard' });
  await tilecast.management.createActivity({ account: 'acme', slug: 'game', template: 'progress' });
  return { ...store, clock, transport, tilecast, token };
}

describe('the accepting instance claims its job in the write (docs/decisions/0118-claim-in-the-write.md)', () => {
  it('runs the job its write claimed without a separate claim, for an activity and a widget', async () => {
    const { storage, writeClaims, separateClaims, transport, tilecast, token } = await setup(true);
    expect(await tilecast.handle(activityPatch(token, 0.5))).toMatchObject({ status: 200 });
    expect(await tilecast.handle(widgetPatch(token, 'Bell'))).toMatchObject({ status: 200 });
    await tilecast.idle();
    expect(writeClaims).toEqual([
      { instanceId: 'here', leaseMs: LEASE_MS },
      { instanceId: 'here', leaseMs: LEASE_MS },
    ]);
    expect(separateClaims()).toBe(0);
    expect(transport.pushes.map((push) => `${push.kind}:${push.deviceId}`).sort()).toEqual(['activity:phone', 'widget:phone']);
    expect(await storage.deliveryJobStats()).toEqual({ pending: 0, oldestCreatedAt: null });
    await tilecast.close();
  });

  it("claims a widget's trailing job at its window's end, not in the write made inside the window", async () => {
    const { storage, separateClaims, clock, transport, tilecast, token } = await setup(true);
    expect(await tilecast.handle(widgetPatch(token, 'One'))).toMatchObject({ status: 200 });
    await tilecast.idle();
    clock.advance(500);
    expect(await tilecast.handle(widgetPatch(token, 'Two'))).toMatchObject({ status: 200 });
    await tilecast.idle();
    // Written inside the window: due at its end, not leased, so not pushed yet.
    expect(await storage.listDeliveryJobs({ limit: 10 })).toEqual([expect.objectContaining({ dueAt: clock.now() + 1_500, leasedBy: null, leaseUntil: 0 })]);
    expect(transport.pushes).toHaveLength(1);
    clock.advance(1_500);
    await tilecast.idle();
    expect(separateClaims()).toBe(1);
    expect(transport.pushes).toHaveLength(2);
    expect(await storage.deliveryJobStats()).toEqual({ pending: 0, oldestCreatedAt: null });
    await tilecast.close();
  });

  it('asks for no claim while nobody can be reached from here: the job stays claimable by any instance', async () => {
    const { storage, writeClaims, separateClaims, tilecast, token } = await setup(false);
    expect(await tilecast.handle(activityPatch(token, 0.5))).toMatchObject({ status: 200 });
    expect(await tilecast.handle(widgetPatch(token, 'Bell'))).toMatchObject({ status: 200 });
    await tilecast.idle();
    expect(writeClaims).toEqual([undefined, undefined]);
    expect(separateClaims()).toBe(0);
    const jobs = await storage.listDeliveryJobs({ limit: 10 });
    expect(jobs.map((job) => [job.kind, job.leasedBy])).toEqual([
      ['activity', null],
      ['widget', null],
    ]);
    await tilecast.close();
  });

  it('gives a job its write claimed back at once when the instance closed meanwhile', async () => {
    const { storage, writeClaims, hold, tilecast, token } = await setup(true);
    // The write's answer is held until the instance has closed, as a write in flight during shutdown would be.
    let release!: () => void;
    hold.until = new Promise<void>((resolve) => {
      release = resolve;
    });
    const answered = tilecast.handle(activityPatch(token, 0.5));
    for (let i = 0; i < 100 && writeClaims.length === 0; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(writeClaims).toEqual([{ instanceId: 'here', leaseMs: LEASE_MS }]);
    await tilecast.handBackDeliveries();
    release();
    expect(await answered).toMatchObject({ status: 200 });
    await tilecast.idle();
    expect(await storage.listDeliveryJobs({ limit: 10 })).toEqual([expect.objectContaining({ kind: 'activity', leasedBy: null, leaseUntil: 0 })]);
  });
});
