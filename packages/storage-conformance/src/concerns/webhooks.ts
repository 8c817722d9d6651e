import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { type GetHandles, T0, count, either, newAccount, newWidget, uid } from '../harness.js';

const map = (n: number): Record<string, unknown> => ({
  '*': { url: `https://example.com/hooks/${n}`, method: 'POST', headers: { 'X-Token': `t${n}` }, body: null },
  lights: { url: 'https://example.com/lights?x={{value}}', secret: `whsec_${n}` },
});

export function webhookTests(get: GetHandles): void {
  it('getWebhookMap is {} for a widget without one and null for a missing widget', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const widget = await newWidget(storage, account.id);
    expect(await storage.getWebhookMap(account.id, widget.slug)).toEqual({});
    expect(await storage.getWebhookMap(account.id, uid('missing'))).toBeNull();
  });

  it('setWebhookMap replaces the whole map; false (and nothing created) for a missing widget', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const widget = await newWidget(storage, account.id);
    expect(await storage.setWebhookMap(account.id, widget.slug, map(1))).toBe(true);
    expect(await storage.getWebhookMap(account.id, widget.slug)).toEqual(map(1));
    const replacement = { ping: { url: 'https://example.org/' } };
    expect(await storage.setWebhookMap(account.id, widget.slug, replacement)).toBe(true);
    expect(await storage.getWebhookMap(account.id, widget.slug)).toEqual(replacement);
    expect(await storage.setWebhookMap(account.id, widget.slug, {})).toBe(true);
    expect(await storage.getWebhookMap(account.id, widget.slug)).toEqual({});
    const missing = uid('missing');
    expect(await storage.setWebhookMap(account.id, missing, map(2))).toBe(false);
    expect(await storage.getWebhookMap(account.id, missing)).toBeNull();
    expect(await storage.getWidget(account.id, missing)).toBeNull();
  });

  it('the webhook map survives content updates and same-template definition changes', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const widget = await newWidget(storage, account.id);
    await storage.setWebhookMap(account.id, widget.slug, map(3));
    await storage.setWidgetContent(account.id, widget.slug, { content: { a: 1 }, staleAfter: null, now: T0 });
    await storage.putWidget({ accountId: account.id, slug: widget.slug, template: widget.template, staleAfter: 120, privacy: 'visible' });
    expect(await storage.getWebhookMap(account.id, widget.slug)).toEqual(map(3));
  });

  it('claimWebhookDelivery: true for the first claim of an (event, entry) pair only', async () => {
    const { storage } = get();
    const event = randomUUID();
    expect(await storage.claimWebhookDelivery(event, 'lights', { instanceId: 'instance-a', now: T0, expiresAt: T0 + 5_000 })).toBe(true);
    expect(await storage.claimWebhookDelivery(event, 'lights', { instanceId: 'instance-a', now: T0 + 1, expiresAt: T0 + 5_000 })).toBe(false);
    expect(await storage.claimWebhookDelivery(event, 'lights', { instanceId: 'instance-b', now: T0 + 2, expiresAt: T0 + 5_000 })).toBe(false);
    expect(await storage.claimWebhookDelivery(event, '*', { instanceId: 'instance-b', now: T0, expiresAt: T0 + 5_000 })).toBe(true);
    expect(await storage.claimWebhookDelivery(randomUUID(), 'lights', { instanceId: 'instance-b', now: T0, expiresAt: T0 + 5_000 })).toBe(true);
  });

  it('concurrent claims from two handles and many instance ids: exactly one winner', async () => {
    const handles = get();
    const event = randomUUID();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        either(handles, i).claimWebhookDelivery(event, 'lights', { instanceId: `instance-${i % 3}`, now: T0, expiresAt: T0 + 5_000 }),
      ),
    );
    expect(count(results, (r) => r)).toBe(1);
  });

  it('outcomes are recorded per entry: last success and last failure, each null until it happens', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const widget = await newWidget(storage, account.id);
    await storage.setWebhookMap(account.id, widget.slug, map(4));
    expect(await storage.getWebhookOutcomes(account.id, widget.slug)).toEqual({});
    const t = (s: number) => new Date(T0 + s * 1_000).toISOString();
    await storage.recordWebhookOutcome(account.id, widget.slug, 'lights', { outcome: 'success', at: t(1) });
    expect(await storage.getWebhookOutcomes(account.id, widget.slug)).toEqual({
      lights: { lastSuccessAt: t(1), lastFailureAt: null },
    });
    await storage.recordWebhookOutcome(account.id, widget.slug, 'lights', { outcome: 'failure', at: t(2) });
    await storage.recordWebhookOutcome(account.id, widget.slug, '*', { outcome: 'failure', at: t(3) });
    await storage.recordWebhookOutcome(account.id, widget.slug, 'lights', { outcome: 'success', at: t(4) });
    expect(await storage.getWebhookOutcomes(account.id, widget.slug)).toEqual({
      lights: { lastSuccessAt: t(4), lastFailureAt: t(2) },
      '*': { lastSuccessAt: null, lastFailureAt: t(3) },
    });
    // Another widget of the same account has its own outcomes.
    const other = await newWidget(storage, account.id);
    expect(await storage.getWebhookOutcomes(account.id, other.slug)).toEqual({});
  });

  it('outcomes of a missing widget: recording is a no-op, reading gives {}', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const slug = uid('missing');
    await storage.recordWebhookOutcome(account.id, slug, '*', { outcome: 'success', at: new Date(T0).toISOString() });
    expect(await storage.getWebhookOutcomes(account.id, slug)).toEqual({});
    expect(await storage.getWidget(account.id, slug)).toBeNull();
  });

  it('deleteWidget removes the map and its outcomes', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const widget = await newWidget(storage, account.id);
    await storage.setWebhookMap(account.id, widget.slug, map(5));
    await storage.recordWebhookOutcome(account.id, widget.slug, '*', { outcome: 'success', at: new Date(T0).toISOString() });
    expect(await storage.deleteWidget(account.id, widget.slug)).toBe(true);
    expect(await storage.getWebhookMap(account.id, widget.slug)).toBeNull();
    expect(await storage.getWebhookOutcomes(account.id, widget.slug)).toEqual({});
    await storage.putWidget({ accountId: account.id, slug: widget.slug, template: widget.template, staleAfter: 300, privacy: 'visible' });
    expect(await storage.getWebhookMap(account.id, widget.slug)).toEqual({});
    expect(await storage.getWebhookOutcomes(account.id, widget.slug)).toEqual({});
  });

  // docs/contract/events-and-webhooks.md#webhook-prototype-names: these are valid action ids and header names, stored like any other.
  it('keys and header names __proto__, constructor and prototype round-trip as own keys, in order', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const widget = await newWidget(storage, account.id);
    // Built by JSON.parse, as a request body is: `__proto__` is a plain own key there.
    const text =
      '{"__proto__":{"url":"https://example.com/p","headers":{"__proto__":"v1","constructor":"v2","prototype":"v3"}},' +
      '"constructor":{"url":"https://example.com/c","headers":{"__proto__":"v4"}},"prototype":{"url":"https://example.com/t"},"*":{"url":"https://example.com/a"}}';
    expect(await storage.setWebhookMap(account.id, widget.slug, JSON.parse(text) as Record<string, unknown>)).toBe(true);
    const read = await storage.getWebhookMap(account.id, widget.slug);
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    expect(Object.keys(read!)).toEqual(['__proto__', 'constructor', 'prototype', '*']);
    expect(JSON.stringify(read)).toBe(JSON.stringify(JSON.parse(text)));
    const proto = Object.getOwnPropertyDescriptor(read, '__proto__')?.value as { headers: Record<string, string> };
    expect(Object.keys(proto.headers)).toEqual(['__proto__', 'constructor', 'prototype']);
    expect(Object.getOwnPropertyDescriptor(proto.headers, '__proto__')?.value).toBe('v1');
    expect(({} as Record<string, unknown>).url).toBeUndefined(); // nothing reached Object.prototype
  });

  it('claims and outcomes of entries named __proto__, constructor and prototype are their own', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const widget = await newWidget(storage, account.id);
    const event = randomUUID();
    for (const key of ['__proto__', 'constructor', 'prototype', '*']) {
      expect(await storage.claimWebhookDelivery(event, key, { instanceId: 'instance-a', now: T0, expiresAt: T0 + 5_000 })).toBe(true);
      expect(await storage.claimWebhookDelivery(event, key, { instanceId: 'instance-a', now: T0, expiresAt: T0 + 5_000 })).toBe(false);
    }
    const t = (s: number) => new Date(T0 + s * 1_000).toISOString();
    await storage.recordWebhookOutcome(account.id, widget.slug, '__proto__', { outcome: 'success', at: t(1) });
    await storage.recordWebhookOutcome(account.id, widget.slug, 'constructor', { outcome: 'failure', at: t(2) });
    const outcomes = await storage.getWebhookOutcomes(account.id, widget.slug);
    expect(Object.getPrototypeOf(outcomes)).toBe(Object.prototype);
    expect(Object.keys(outcomes).sort()).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(outcomes, '__proto__')?.value).toEqual({ lastSuccessAt: t(1), lastFailureAt: null });
    expect(Object.getOwnPropertyDescriptor(outcomes, 'constructor')?.value).toEqual({ lastSuccessAt: null, lastFailureAt: t(2) });
  });
}
