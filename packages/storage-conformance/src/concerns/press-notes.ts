import { expect, it } from 'vitest';
import { type GetHandles, T0, uid } from '../harness.js';

const WINDOW = 15_000;

export function pressNoteTests(get: GetHandles): void {
  it('a noted press is listed until its time is up (until > now)', async () => {
    const { storage } = get();
    const widget = uid('widget');
    await storage.notePress({ widgetKey: widget, deviceId: 'phone-b', until: T0 + WINDOW });
    await storage.notePress({ widgetKey: widget, deviceId: 'phone-a', until: T0 + WINDOW });
    expect(await storage.listRecentPressers(widget, T0)).toEqual(['phone-a', 'phone-b']);
    expect(await storage.listRecentPressers(widget, T0 + WINDOW - 1)).toEqual(['phone-a', 'phone-b']);
    expect(await storage.listRecentPressers(widget, T0 + WINDOW)).toEqual([]);
  });

  it('a later note extends the earlier one; widgets are independent', async () => {
    const { storage, peer } = get();
    const widget = uid('widget');
    const other = uid('widget');
    await storage.notePress({ widgetKey: widget, deviceId: 'phone', until: T0 + WINDOW });
    await peer.notePress({ widgetKey: widget, deviceId: 'phone', until: T0 + 10_000 + WINDOW });
    await storage.notePress({ widgetKey: other, deviceId: 'tablet', until: T0 + WINDOW });
    expect(await peer.listRecentPressers(widget, T0 + WINDOW + 1)).toEqual(['phone']);
    expect(await storage.listRecentPressers(widget, T0 + 10_000 + WINDOW)).toEqual([]);
    expect(await storage.listRecentPressers(other, T0)).toEqual(['tablet']);
  });
}
