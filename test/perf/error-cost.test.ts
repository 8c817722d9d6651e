/**
 * docs/contract/limits-and-errors.md#field-error-cost: a body with thousands of faults costs no more to refuse than a
 * valid body of the same size costs to accept. Measured through the core handler (body
 * read, JSON parse, checks, store, answer serialised), as ratios within one run: never
 * absolute times, which depend on the machine.
 *
 * The valid body is the largest kind the service accepts: a webhook map of nine entries
 * with full header sets and body templates (thousands of keys, as the refused bodies
 * have), padded with spaces to exactly the refused body's size. Parsing is a cost both
 * pay alike; what is compared is everything the service adds on top.
 */
import { describe, expect, it } from 'vitest';
import { createTilecast, type Tilecast } from '@tilecast/core';
import type { CoreRequest, CoreResult } from '@tilecast/core/adapter';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { seedFixture, unknownMembers } from '../support/fixtures.js';

const BOUND = Number(process.env.ERROR_COST_BOUND ?? 1.5);

function coreRequest(method: string, path: string, authorization: string, text: string): CoreRequest {
  const bytes = Buffer.from(text);
  return {
    method,
    path,
    query: new URLSearchParams(''),
    headers: { 'content-type': 'application/json', authorization },
    body: { kind: 'raw', read: async () => bytes },
  };
}

/** The largest valid webhook map (about 56 KB), padded with spaces to exactly `size` bytes. */
function validMapOfSize(size: number): string {
  const webhooks: Record<string, unknown> = {};
  for (const [e, key] of ['e0', 'e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7', '*'].entries()) {
    const headers: Record<string, string> = {};
    let headerBytes = 0;
    for (let i = 0; headerBytes + 12 <= 1024; i++) {
      headers[`h${e}x${i}`] = 'v';
      headerBytes += `h${e}x${i}v`.length;
    }
    const body: Record<string, string> = {};
    for (let i = 0; JSON.stringify(body).length + 24 <= 2048; i++) body[`b${e}_${i}`] = '{{action}}';
    webhooks[key] = { url: `https://hooks.example.com/${'p'.repeat(1800)}`, method: 'PUT', headers, body, secret: 's'.repeat(256) };
  }
  const text = JSON.stringify({ webhooks });
  if (Buffer.byteLength(text) > size) throw new Error(`the valid map (${text.length} bytes) is larger than ${size}`);
  return `${text.slice(0, -1)}${' '.repeat(size - Buffer.byteLength(text))}}`;
}

/** One call through the handler, answer serialised as an adapter would: microseconds. */
async function timed(tilecast: Tilecast, request: () => CoreRequest, status: number): Promise<number> {
  const start = process.hrtime.bigint();
  const result: CoreResult = await tilecast.handle(request());
  const size = result.kind === 'json' ? JSON.stringify(result.body).length : 0;
  const micros = Number(process.hrtime.bigint() - start) / 1000;
  if (result.kind !== 'json' || result.status !== status || size === 0) throw new Error(`unexpected answer ${JSON.stringify(result).slice(0, 300)}`);
  return micros;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * Refusing vs accepting, interleaved call by call (so a slow spell hits both), then the
 * median of the pairwise ratios, and the ratio of the fastest calls: both must hold.
 */
async function costRatio(tilecast: Tilecast, refused: () => CoreRequest, accepted: () => CoreRequest): Promise<{ median: number; fastest: number }> {
  for (let i = 0; i < 15; i++) {
    await timed(tilecast, refused, 422);
    await timed(tilecast, accepted, 200);
  }
  const ratios: number[] = [];
  const refusedTimes: number[] = [];
  const acceptedTimes: number[] = [];
  for (let i = 0; i < 40; i++) {
    const r = await timed(tilecast, refused, 422);
    const a = await timed(tilecast, accepted, 200);
    refusedTimes.push(r);
    acceptedTimes.push(a);
    ratios.push(r / a);
  }
  return { median: median(ratios), fastest: Math.min(...refusedTimes) / Math.min(...acceptedTimes) };
}

describe('refusing a body of thousands of faults costs no more than accepting a valid body of its size', () => {
  it.each([
    ['6,000 unknown keys in a webhook map', 'PUT', '/widget/lights/webhooks', `{"webhooks":{},${unknownMembers(6000)}}`],
    [
      '6,000 unknown keys in an activity update',
      'PATCH',
      '/activity/build',
      `{"state":"ONGOING","content":{"template":"progress","progress":{"value":0.5}},${unknownMembers(6000)}}`,
    ],
    [
      '7,000 bad items in a list of at most 4',
      'PATCH',
      '/activity/build',
      JSON.stringify({
        state: 'ONGOING',
        content: { template: 'progress', progress: { value: 0.5, segments: Array.from({ length: 7000 }, (_, i) => ({ [`x${i % 50}`]: 1 })) } },
      }),
    ],
    [
      '6,000 bad webhook headers',
      'PUT',
      '/widget/lights/webhooks',
      JSON.stringify({
        webhooks: { '*': { url: 'https://hooks.example.com/', headers: Object.fromEntries(Array.from({ length: 6000 }, (_, i) => [`h${i}`, 5])) } },
      }),
    ],
  ])(
    '%s',
    async (_, method, path, refusedText) => {
      const tilecast = createTilecast({ storage: createMemoryStorage() });
      const f = await seedFixture(tilecast);
      const size = Buffer.byteLength(refusedText);
      expect(size).toBeGreaterThan(48_000);
      const acceptedText = validMapOfSize(size);
      expect(Buffer.byteLength(acceptedText)).toBe(size);
      // Other test files share the CPU: a measurement may be disturbed, so up to three are
      // taken and the first that holds counts. Before the fix every one was over 3.
      const ratios: { median: number; fastest: number }[] = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        const ratio = await costRatio(
          tilecast,
          () => coreRequest(method, path, `Token ${f.acme}`, refusedText),
          () => coreRequest('PUT', '/widget/lights/webhooks', `Token ${f.acme}`, acceptedText),
        );
        ratios.push(ratio);
        if (ratio.median <= BOUND && ratio.fastest <= BOUND) break;
      }
      const last = ratios.at(-1)!;
      expect(last.median, JSON.stringify(ratios)).toBeLessThanOrEqual(BOUND);
      expect(last.fastest, JSON.stringify(ratios)).toBeLessThanOrEqual(BOUND);
      await tilecast.close();
    },
    60_000,
  );
});
