import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adapters, request, startApi, type ApiServer } from '../support/api-server.js';
import { gaugeContent, seedFixture, switchboardContent, type Fixture } from '../support/fixtures.js';
import { createManualClock, type ManualClock } from '../support/manual-clock.js';

/** A number whose JSON text is exactly `length` characters (1..21), checked to round-trip. */
function numberOfJsonLength(length: number): number {
  const text =
    length <= 15
      ? '1'.repeat(length)
      : length === 16
        ? '-' + '1'.repeat(15)
        : length === 17
          ? '-0.' + '1'.repeat(14)
          : '-0.' + '0'.repeat(length - 18) + '1'.repeat(15);
  const value = Number(text);
  if (JSON.stringify(value) !== text) throw new Error(`no number of JSON length ${length}`);
  return value;
}

/** Valid `prices` content whose compact JSON is exactly `bytes` long: 48 entries whose prices take up the room. */
function pricesContentOfSize(bytes: number): Record<string, unknown> {
  const start = (i: number) => new Date(Date.UTC(2026, 10, 22, 0, i * 15)).toISOString().replace('Z', '+00:00');
  const base = { template: 'prices', unit: '', entries: Array.from({ length: 48 }, (_, i) => ({ start: start(i), price: 0, level: 'medium' })) };
  let missing = bytes - JSON.stringify(base).length;
  const entries = base.entries.map((entry) => {
    const extra = Math.max(0, Math.min(20, missing));
    missing -= extra;
    return { ...entry, price: numberOfJsonLength(extra + 1) };
  });
  if (missing < 0 || missing > 16) throw new Error(`cannot build prices content of ${bytes} bytes`);
  return { ...base, entries, unit: 'x'.repeat(missing) };
}

/**
 * `prices` content whose compact JSON is exactly `bytes` long, every price `1e20`, and the
 * request text that writes each price as `1e20` (4 characters for the 21 digits it becomes).
 */
function bigPricesOfSize(bytes: number, price = 1e20, literal = '1e20'): { content: Record<string, unknown>; text: string } {
  const start = (i: number) => new Date(Date.UTC(2026, 10, 22, 0, i * 15)).toISOString().replace('Z', '+00:00');
  const entries: Record<string, unknown>[] = Array.from({ length: 48 }, (_, i) => ({ start: start(i), price }));
  let missing = bytes - JSON.stringify({ template: 'prices', unit: '', entries }).length;
  for (const entry of entries) {
    if (missing < ',"level":"medium"'.length) break;
    entry.level = 'medium';
    missing -= ',"level":"medium"'.length;
  }
  if (missing < 0 || missing > 16) throw new Error(`cannot build prices content of ${bytes} bytes`);
  const content = { template: 'prices', unit: 'x'.repeat(missing), entries };
  const text = JSON.stringify({ content }).replaceAll(JSON.stringify(price), literal);
  if (JSON.stringify(content).length !== bytes || JSON.stringify((JSON.parse(text) as { content: unknown }).content) !== JSON.stringify(content))
    throw new Error('bad prices content');
  return { content, text };
}

describe.each(adapters)('PATCH /widget/{slug} through %s', (adapter) => {
  let api: ApiServer;
  let f: Fixture;
  let clock: ManualClock;
  const patch = (slug: string, body: unknown, token = f.acme) => request(api, 'PATCH', `/widget/${slug}`, { token, body });
  beforeEach(async () => {
    clock = createManualClock();
    api = await startApi(adapter, { clock });
    f = await seedFixture(api.tilecast);
  });
  afterEach(() => api.close());

  it('echoes the stored content with defaults and the effective stale_after', async () => {
    const reply = await patch('boiler', { content: gaugeContent() });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      content: {
        template: 'gauge',
        value: 21.5,
        min_value: 0,
        max_value: 100,
        unit: '°C',
        label: 'Boiler',
        color: null,
        icon: null,
        accent: null,
        tap_url: null,
      },
      stale_after: 3600,
    });
  });

  it('stale_after: omitted keeps, null clears, a number sets, bounds 60..604800', async () => {
    expect((await patch('boiler', { content: gaugeContent(), stale_after: 60 })).body.stale_after).toBe(60);
    expect((await patch('boiler', { content: gaugeContent() })).body.stale_after).toBe(60);
    expect((await patch('boiler', { content: gaugeContent(), stale_after: 604800 })).body.stale_after).toBe(604800);
    expect((await patch('boiler', { content: gaugeContent(), stale_after: null })).body.stale_after).toBeNull();
    expect((await patch('boiler', { content: gaugeContent() })).body.stale_after).toBeNull();
    for (const bad of [59, 604801, 90.5, '120', -0]) {
      const reply = await patch('boiler', { content: gaugeContent(), stale_after: bad });
      expect(reply.status, String(bad)).toBe(422);
      expect(reply.body.detail[0].loc).toEqual(['body', 'stale_after']);
    }
  });

  it('switchboard: buttons default, toggles keep on, no on for buttons', async () => {
    const reply = await patch('lights', { content: switchboardContent() });
    expect(reply.status).toBe(200);
    const [hall, bell] = reply.body.content.actions;
    expect(hall).toMatchObject({ id: 'hall', kind: 'toggle', on: false });
    expect(bell).toMatchObject({ id: 'bell', kind: 'button', active: false });
    expect(bell).not.toHaveProperty('on');
  });

  it('errors: 422 Invalid widget content for a schema failure, 400 mismatch, 404', async () => {
    expect(await patch('boiler', { content: { template: 'gauge' } })).toMatchObject({ status: 422, body: { detail: 'Invalid widget content' } });
    expect(await patch('boiler', { content: { ...gaugeContent(), extra: 1 } })).toMatchObject({ status: 422, body: { detail: 'Invalid widget content' } });
    expect(await patch('boiler', { content: switchboardContent() })).toMatchObject({ status: 400, body: { detail: 'Template mismatch' } });
    expect(await patch('nope', { content: gaugeContent() })).toMatchObject({ status: 404, body: { detail: 'Widget not found' } });
    const envelope = await patch('boiler', { stale_after: 120 });
    expect(envelope).toMatchObject({ status: 422, body: { detail: [{ loc: ['body', 'content'], type: 'missing' }] } });
    const unknownTemplate = await patch('boiler', { content: { template: 'weather' } });
    expect(unknownTemplate.body.detail[0].loc).toEqual(['body', 'content', 'template']);
  });

  it('content of exactly 4096 bytes is accepted, 4097 refused', async () => {
    await api.tilecast.management.createWidget({ account: 'acme', slug: 'tariff', template: 'prices' });
    const atLimit = pricesContentOfSize(4096);
    expect(JSON.stringify(atLimit)).toHaveLength(4096);
    expect((await patch('tariff', { content: atLimit })).status).toBe(200);
    const over = pricesContentOfSize(4097);
    expect(await patch('tariff', { content: over })).toMatchObject({ status: 422, body: { detail: 'Invalid widget content' } });
  });

  it('the limit measures the parsed content as serialised, not the request text: 1e20 counts as its 21 digits', async () => {
    await api.tilecast.management.createWidget({ account: 'acme', slug: 'tariff', template: 'prices' });
    const over = bigPricesOfSize(4097);
    expect(Buffer.byteLength(over.text)).toBeLessThan(3400); // the request itself is well under 4 KiB
    const refused = await request(api, 'PATCH', '/widget/tariff', { token: f.acme, raw: over.text });
    expect(refused).toMatchObject({ status: 422, body: { detail: 'Invalid widget content' } });
    const atLimit = bigPricesOfSize(4096);
    const accepted = await request(api, 'PATCH', '/widget/tariff', { token: f.acme, raw: atLimit.text });
    expect(accepted.status).toBe(200);
    expect(accepted.body.content.entries[0].price).toBe(1e20);
    // What is stored: the accepted content, never the refused one.
    expect((await api.storage.getWidget('acme', 'tariff'))!.content).toMatchObject({ unit: atLimit.content.unit });
  });

  it('a number without an exponent that grows when serialised counts as serialised too (sixteen nines become 1e16)', async () => {
    await api.tilecast.management.createWidget({ account: 'acme', slug: 'tariff', template: 'prices' });
    const over = bigPricesOfSize(4097, 1e16, '9999999999999999');
    expect(Buffer.byteLength(over.text)).toBeLessThanOrEqual(4096); // the request text alone would fit
    const refused = await request(api, 'PATCH', '/widget/tariff', { token: f.acme, raw: over.text });
    expect(refused).toMatchObject({ status: 422, body: { detail: 'Invalid widget content' } });
    const atLimit = bigPricesOfSize(4096, 1e16, '9999999999999999');
    expect((await request(api, 'PATCH', '/widget/tariff', { token: f.acme, raw: atLimit.text })).status).toBe(200);
  });

  it('multi-byte characters count as their UTF-8 bytes at the boundary', async () => {
    await api.tilecast.management.createWidget({ account: 'acme', slug: 'tariff', template: 'prices' });
    const fits = pricesContentOfSize(4090);
    const fitsUnit = (fits.unit as string) + '€€'; // 4092 characters, exactly 4096 bytes
    expect(Buffer.byteLength(JSON.stringify({ ...fits, unit: fitsUnit }))).toBe(4096);
    expect((await patch('tariff', { content: { ...fits, unit: fitsUnit } })).status).toBe(200);
    const over = pricesContentOfSize(4094);
    const overUnit = (over.unit as string) + '€'; // 4095 characters, 4097 bytes
    expect(Buffer.byteLength(JSON.stringify({ ...over, unit: overUnit }))).toBe(4097);
    expect(await patch('tariff', { content: { ...over, unit: overUnit } })).toMatchObject({ status: 422, body: { detail: 'Invalid widget content' } });
  });

  it('the limit counts UTF-8 bytes, not characters', async () => {
    await api.tilecast.management.createWidget({ account: 'acme', slug: 'tariff', template: 'prices' });
    const content = pricesContentOfSize(4090);
    const unit = (content.unit as string) + '€€€'; // 3 characters, 9 bytes: 4096 characters, 4102 bytes
    expect(await patch('tariff', { content: { ...content, unit } })).toMatchObject({ status: 422, body: { detail: 'Invalid widget content' } });
  });

  it("pushes to the account's devices and shared devices, at most once per widget every 2 s with the latest content", async () => {
    await patch('lights', { content: switchboardContent() });
    await api.tilecast.idle();
    expect(api.transport.pushes.map((p) => p.deviceId).sort()).toEqual(['acme-phone', 'guest-phone']);
    api.transport.clear();

    clock.advance(500);
    const second = switchboardContent();
    second.title = 'Second';
    await patch('lights', { content: second });
    const third = switchboardContent();
    third.title = 'Third';
    await patch('lights', { content: third });
    await api.tilecast.idle();
    expect(api.transport.pushes).toEqual([]);

    clock.advance(1_499);
    await api.tilecast.idle();
    expect(api.transport.pushes).toEqual([]);
    clock.advance(1);
    await api.tilecast.idle();
    expect(api.transport.pushes).toHaveLength(2);
    for (const p of api.transport.pushes) expect(p.push).toMatchObject({ owner: 'acme', slug: 'lights', content: { title: 'Third' }, privacy: 'visible' });

    // The window restarted with the trailing push: nothing more is pending.
    api.transport.clear();
    clock.advance(10_000);
    await api.tilecast.idle();
    expect(api.transport.pushes).toEqual([]);
  });

  it('six updates within one second: the first at once, one trailing push with the latest content, then quiet', async () => {
    const titled = (title: string) => ({ ...switchboardContent(), title });
    for (let i = 1; i <= 6; i++) {
      await patch('lights', { content: titled(`Update ${i}`) });
      await api.tilecast.idle();
      if (i === 1) {
        expect(api.transport.pushes.map((p) => (p.push as { content: { title: string } }).content.title)).toEqual(['Update 1', 'Update 1']);
        api.transport.clear();
      }
      clock.advance(150);
    }
    expect(api.transport.pushes).toEqual([]);
    clock.advance(2_000 - 6 * 150);
    await api.tilecast.idle();
    expect(api.transport.pushes.map((p) => [p.deviceId, (p.push as { content: { title: string } }).content.title]).sort()).toEqual([
      ['acme-phone', 'Update 6'],
      ['guest-phone', 'Update 6'],
    ]);
    api.transport.clear();
    clock.advance(60_000);
    await api.tilecast.idle();
    expect(api.transport.pushes).toEqual([]);
  });
});
