import { expect, it } from 'vitest';
import { type GetHandles, T0, content, newAccount, newActivity, newWidget, randomHash, uid, written } from '../harness.js';

/** `WriteGuard`: conditions a publisher's write is made under, checked in the write itself. */
export function writeGuardTests(get: GetHandles): void {
  it('setWidgetContent writes only while the guarded template and credential hold', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const widget = await newWidget(storage, account.id, 'switchboard');
    const write = (i: number, guard: { template?: string; tokenHash?: string }) =>
      storage.setWidgetContent(account.id, widget.slug, { content: content(i), staleAfter: undefined, now: T0 + i, guard });

    expect(written(await write(1, { template: 'switchboard', tokenHash: account.tokenHash })).widget.content).toEqual(content(1));
    expect(await write(2, { template: 'battery', tokenHash: account.tokenHash })).toEqual({ ok: false, reason: 'template_mismatch' });
    expect(await write(3, { template: 'switchboard', tokenHash: randomHash() })).toEqual({ ok: false, reason: 'credential_changed' });
    expect((await storage.getWidget(account.id, widget.slug))?.content).toEqual(content(1));
  });

  it('a rotated token or an ended subscription refuses the next guarded write at once, on every instance', async () => {
    const { storage, peer } = get();
    const account = await newAccount(storage);
    const widget = await newWidget(storage, account.id);
    const activity = await newActivity(storage, account.id);
    const guard = { tokenHash: account.tokenHash };
    const widgetWrite = (i: number) => storage.setWidgetContent(account.id, widget.slug, { content: content(i), staleAfter: null, now: T0, guard });
    const activityWrite = (i: number) => storage.applyActivityUpdate(account.id, activity.slug, { state: 'ONGOING', content: content(i), now: T0, guard });
    written(await widgetWrite(1));
    written(await activityWrite(1));

    await peer.updateAccount(account.id, { subscription: 'none' });
    expect(await widgetWrite(2)).toEqual({ ok: false, reason: 'credential_changed' });
    expect(await activityWrite(2)).toEqual({ ok: false, reason: 'credential_changed' });
    await peer.updateAccount(account.id, { subscription: 'active' });
    written(await widgetWrite(3));

    await peer.setAccountTokenHash(account.id, randomHash());
    expect(await widgetWrite(4)).toEqual({ ok: false, reason: 'credential_changed' });
    expect(await activityWrite(4)).toEqual({ ok: false, reason: 'credential_changed' });
    expect((await storage.getWidget(account.id, widget.slug))?.content).toEqual(content(3));
    expect((await storage.getActivity(account.id, activity.slug))?.content).toEqual(content(1));
  });

  it('refusals come in order: credential, then a missing record, then template, then quota', async () => {
    const { storage } = get();
    const account = await newAccount(storage, { activityQuota: 0 });
    const activity = await newActivity(storage, account.id, 'progress');
    const missing = uid('missing');
    const stale = randomHash();
    const good = account.tokenHash;
    const widgetWrite = (slug: string, template: string, tokenHash: string) =>
      storage.setWidgetContent(account.id, slug, { content: content(1), staleAfter: null, now: T0, guard: { template, tokenHash } });
    const start = (slug: string, template: string, tokenHash: string) =>
      storage.applyActivityUpdate(account.id, slug, { state: 'ONGOING', content: content(1), now: T0, guard: { template, tokenHash } });

    expect(await widgetWrite(missing, 'battery', stale)).toEqual({ ok: false, reason: 'credential_changed' });
    expect(await widgetWrite(missing, 'battery', good)).toEqual({ ok: false, reason: 'not_found' });
    expect(await start(missing, 'gauge', stale)).toEqual({ ok: false, reason: 'credential_changed' });
    expect(await start(missing, 'gauge', good)).toEqual({ ok: false, reason: 'not_found' });
    expect(await start(activity.slug, 'gauge', stale)).toEqual({ ok: false, reason: 'credential_changed' });
    expect(await start(activity.slug, 'gauge', good)).toEqual({ ok: false, reason: 'template_mismatch' });
    expect(await start(activity.slug, 'progress', good)).toEqual({ ok: false, reason: 'quota_exceeded' });
    expect(await storage.getActivity(account.id, activity.slug)).toEqual(activity);
  });

  it('a live activity refuses an update or an end for another template, and another account, and changes nothing', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const stranger = await newAccount(storage);
    const activity = await newActivity(storage, account.id, 'progress');
    const write = (state: 'ONGOING' | 'IDLE', i: number, template: string, tokenHash = account.tokenHash) =>
      storage.applyActivityUpdate(account.id, activity.slug, { state, content: content(i), now: T0 + i, guard: { template, tokenHash } });
    written(await write('ONGOING', 1, 'progress'));
    for (const state of ['ONGOING', 'IDLE'] as const) {
      expect(await write(state, 2, 'gauge')).toEqual({ ok: false, reason: 'template_mismatch' });
      expect(await write(state, 3, 'progress', stranger.tokenHash)).toEqual({ ok: false, reason: 'credential_changed' });
    }
    expect(await storage.getActivity(account.id, activity.slug)).toMatchObject({ live: true, state: 'ONGOING', content: content(1) });
    expect(await write('IDLE', 4, 'progress')).toMatchObject({ ok: true, transition: 'end' });
  });

  it("a guard that names another account's token never lets a write through", async () => {
    const { storage } = get();
    const owner = await newAccount(storage);
    const stranger = await newAccount(storage);
    const widget = await newWidget(storage, owner.id);
    const result = await storage.setWidgetContent(owner.id, widget.slug, {
      content: content(9),
      staleAfter: null,
      now: T0,
      guard: { tokenHash: stranger.tokenHash },
    });
    expect(result).toEqual({ ok: false, reason: 'credential_changed' });
    expect((await storage.getWidget(owner.id, widget.slug))?.content).toBeNull();
  });
}
