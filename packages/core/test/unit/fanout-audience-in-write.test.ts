import { createMemoryStorage } from '@tilecast/storage-memory';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../../test/support/manual-clock.js';
import { createRecordingTransport, type Storage } from '../../src/index.js';
import { activityPatch, tilecastWithJobs, widgetPatch } from './fanout-write-fixtures.js';

/** What a content write's answer does with the `audience` the store returned. */
type AudienceEdit = (audience: readonly string[] | undefined) => readonly string[] | undefined;

/**
 * A memory store (which returns the audience of a write that claimed its job) whose content
 * writes' `audience` goes through `edit`, and which counts the reads of a job's devices.
 */
function watchedStorage(edit: AudienceEdit) {
  const storage = createMemoryStorage();
  const reads = { deviceIds: 0, shares: 0 };
  const edited = <R extends { ok: boolean; audience?: readonly string[] }>(result: R): R => {
    if (!result.ok) return result;
    const { audience, ...rest } = result;
    const next = edit(audience);
    return (next === undefined ? rest : { ...rest, audience: next }) as R;
  };
  const watched: Storage = new Proxy(storage, {
    get(target, key, receiver) {
      if (key === 'applyActivityUpdate')
        return async (...args: Parameters<Storage['applyActivityUpdate']>) => edited(await target.applyActivityUpdate(...args));
      if (key === 'setWidgetContent') return async (...args: Parameters<Storage['setWidgetContent']>) => edited(await target.setWidgetContent(...args));
      if (key === 'listAccountDeviceIds')
        return (accountId: string) => {
          reads.deviceIds += 1;
          return target.listAccountDeviceIds(accountId);
        };
      if (key === 'listWidgetShares')
        return (accountId: string, slug: string) => {
          reads.shares += 1;
          return target.listWidgetShares(accountId, slug);
        };
      return Reflect.get(target, key, receiver);
    },
  });
  return { storage: watched, reads };
}

async function setup(edit: AudienceEdit = (audience) => audience) {
  const clock = createManualClock();
  const store = watchedStorage(edit);
  const transport = createRecordingTransport();
  const tilecast = tilecastWithJobs(store.storage, clock, transport);
  const { token } = await tilecast.management.createAccount({ id: 'acme' });
  await tilecast.management.createAccount({ id: 'guest' });
  for (const id of ['phone-b', 'phone-a']) await tilecast.management.registerDevice({ id, account: 'acme' });
  await tilecast.management.registerDevice({ id: 'phone-c', account: 'guest' });
  await tilecast.management.createWidget({ account: 'acme', slug: 'lights', template: 'switchboard' });
  await tilecast.management.shareWidget('acme', 'lights', 'phone-c');
  await tilecast.management.createActivity({ account: 'acme', slug: 'game', template: 'progress' });
  store.reads.deviceIds = 0;
  store.reads.shares = 0;
  return { ...store, clock, transport, tilecast, token };
}

const pushed = (transport: ReturnType<typeof createRecordingTransport>) => transport.pushes.map((push) => `${push.kind}:${push.deviceId}`).sort();

describe('the job claimed in the write walks the audience that write read (docs/decisions/0119-audience-in-the-write.md)', () => {
  it("runs on the write's audience without reading the devices or the shares", async () => {
    const { reads, transport, tilecast, token } = await setup();
    expect(await tilecast.handle(activityPatch(token, 0.5))).toMatchObject({ status: 200 });
    expect(await tilecast.handle(widgetPatch(token, 'Bell'))).toMatchObject({ status: 200 });
    await tilecast.idle();
    expect(reads).toEqual({ deviceIds: 0, shares: 0 });
    expect(pushed(transport)).toEqual(['activity:phone-a', 'activity:phone-b', 'widget:phone-a', 'widget:phone-b', 'widget:phone-c']);
    await tilecast.close();
  });

  it('pushes to exactly the devices the write returned', async () => {
    const { reads, transport, tilecast, token } = await setup((audience) => audience?.filter((id) => id !== 'phone-a'));
    expect(await tilecast.handle(activityPatch(token, 0.5))).toMatchObject({ status: 200 });
    expect(await tilecast.handle(widgetPatch(token, 'Bell'))).toMatchObject({ status: 200 });
    await tilecast.idle();
    expect(reads).toEqual({ deviceIds: 0, shares: 0 });
    expect(pushed(transport)).toEqual(['activity:phone-b', 'widget:phone-b', 'widget:phone-c']);
    await tilecast.close();
  });

  it('reads the devices (and a widget its shares) when the write returns no audience', async () => {
    const { reads, transport, tilecast, token } = await setup(() => undefined);
    expect(await tilecast.handle(activityPatch(token, 0.5))).toMatchObject({ status: 200 });
    await tilecast.idle();
    expect(reads).toEqual({ deviceIds: 1, shares: 0 });
    expect(await tilecast.handle(widgetPatch(token, 'Bell'))).toMatchObject({ status: 200 });
    await tilecast.idle();
    expect(reads).toEqual({ deviceIds: 2, shares: 1 });
    expect(pushed(transport)).toEqual(['activity:phone-a', 'activity:phone-b', 'widget:phone-a', 'widget:phone-b', 'widget:phone-c']);
    await tilecast.close();
  });

  it("reads them for a job claimed any other way: a widget's trailing push at its window's end", async () => {
    const { reads, clock, transport, tilecast, token } = await setup();
    expect(await tilecast.handle(widgetPatch(token, 'One'))).toMatchObject({ status: 200 });
    await tilecast.idle();
    clock.advance(500);
    expect(await tilecast.handle(widgetPatch(token, 'Two'))).toMatchObject({ status: 200 });
    await tilecast.idle();
    expect(reads).toEqual({ deviceIds: 0, shares: 0 });
    clock.advance(1_500);
    await tilecast.idle();
    expect(reads).toEqual({ deviceIds: 1, shares: 1 });
    expect(transport.pushes).toHaveLength(6);
    await tilecast.close();
  });
});
