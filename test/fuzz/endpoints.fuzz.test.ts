/**
 * Fuzz test (issue 20, docs/contract/limits-and-errors.md#no-500-no-stall: no input of any shape produces a 500 or
 * stalls the process): mutated bodies, paths and headers to every endpoint, through a
 * real adapter over real HTTP on 127.0.0.1, on memory and PostgreSQL storage. Each answer
 * must come within a bound, never be a 5xx, and every error must be JSON in the
 * specified shape (see ./check.ts).
 *
 * Seeded and bounded: the same seed sends the same requests. On failure the message
 * names the seed and the fast-check path of the (shrunk) counterexample; replay with
 *   TILECAST_FUZZ_SEED=<seed> TILECAST_FUZZ_PATH=<path> npx vitest run test/fuzz -t '<test name>'
 * Settings: TILECAST_FUZZ_SEED (default 20), TILECAST_FUZZ_RUNS (requests per endpoint,
 * default 80), TILECAST_FUZZ_TIMEOUT_MS (bound on each answer, default 5000), and
 * TILECAST_FUZZ_COLLECT=1 to run every case and print every failing one (no shrinking)
 * instead of stopping at the first.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '@tilecast/core';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { createPostgresStorage } from '@tilecast/storage-postgres';
import { openBackend, migrate, randomSchema, type Backend } from '../../packages/storage-postgres/test/support.js';
import { adapters, request, startApi, type AdapterName, type ApiServer } from '../support/api-server.js';
import { seedFixture, switchboardContent } from '../support/fixtures.js';
import { createManualClock, type ManualClock } from '../support/manual-clock.js';
import { describeReply, describeRequest, likelyItem, problems } from './check.js';
import { sendRaw, type RawReply } from './raw-http.js';
import { endpoints, type FuzzCase } from './requests.js';
import { integerSetting } from './settings.js';

const SEED = integerSetting('TILECAST_FUZZ_SEED', 20);
const RUNS = integerSetting('TILECAST_FUZZ_RUNS', 80);
const TIMEOUT_MS = integerSetting('TILECAST_FUZZ_TIMEOUT_MS', 5_000);
const REPLAY_PATH = process.env.TILECAST_FUZZ_PATH || undefined;
const COLLECT = process.env.TILECAST_FUZZ_COLLECT === '1';

type StoreName = 'memory' | 'postgres';
const combos: Array<[AdapterName, StoreName]> = adapters.flatMap((adapter) =>
  (['memory', 'postgres'] as const).map((store): [AdapterName, StoreName] => [adapter, store]),
);

/** Endpoint names, known before any server runs (the arbitraries are cheap to make). */
const ENDPOINT_NAMES = endpoints({ prefix: '', tokens: { acme: 'a', other: 'o', unsubscribed: 'u', deviceToken: 'd', guestToken: 'g' } }).map((e) => e.name);

class FuzzFailure extends Error {}

let backend: Backend | undefined;
beforeAll(async () => {
  backend = await openBackend();
  console.log(`fuzz: seed ${SEED}, ${RUNS} requests per endpoint, PostgreSQL tests on ${backend.kind}`);
});
afterAll(async () => {
  await backend?.end();
});

describe.each(combos)('fuzz through %s on %s storage', (adapter, store) => {
  let api: ApiServer;
  let clock: ManualClock;
  let schema: string | undefined;
  let port: number;
  let prefix: string;
  let cases: Map<string, fc.Arbitrary<FuzzCase>>;
  const statuses = new Map<string, number>();
  const collected: string[] = [];
  let started = 0;

  beforeAll(async () => {
    started = performance.now();
    let storage: Storage = createMemoryStorage();
    if (store === 'postgres') {
      schema = randomSchema('fuzz');
      await migrate(backend!.admin, { schema });
      storage = createPostgresStorage({ pool: backend!.newPool(), schema });
    }
    clock = createManualClock();
    // Every webhook destination resolves to loopback, which the address guard refuses:
    // presses that match a webhook map never leave the machine.
    api = await startApi(adapter, { clock, storage, webhooks: { resolve: async () => [{ address: '127.0.0.1', family: 4 }] } });
    const tokens = await seedFixture(api.tilecast);
    await api.tilecast.management.createWidget({ account: 'acme', slug: 'tariff', template: 'prices' });
    // Actions on `lights`, so that presses can be accepted from the first request on.
    const lights = await request(api, 'PATCH', '/widget/lights', { token: tokens.acme, body: { content: switchboardContent() } });
    if (lights.status !== 200) throw new Error(`setup: PATCH /widget/lights answered ${lights.status}`);
    const url = new URL(api.url);
    port = Number(url.port);
    prefix = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
    cases = new Map(endpoints({ prefix, tokens }).map((e) => [e.name, e.cases]));
  });

  afterAll(async () => {
    await api?.close();
    await api?.storage.close?.();
    if (schema !== undefined) await backend!.dropSchema(schema);
    const summary = [...statuses]
      .sort()
      .map(([status, n]) => `${status}×${n}`)
      .join(' ');
    console.log(`fuzz ${adapter}/${store}: ${summary} in ${Math.round(performance.now() - started)} ms`);
    if (collected.length > 0) console.log(`fuzz ${adapter}/${store}: ${collected.length} failing cases\n\n${collected.join('\n\n')}`);
  });

  const send = async (testCase: FuzzCase): Promise<void> => {
    // Time moves a second per request: press rate limits refill, events expire.
    clock.advance(1_000);
    let reply: RawReply;
    try {
      reply = await sendRaw(port, testCase.request, TIMEOUT_MS);
    } catch (error) {
      return fail(testCase, [(error as Error).message], null);
    }
    statuses.set(String(reply.status), (statuses.get(String(reply.status)) ?? 0) + 1);
    const found = problems(testCase.request, reply);
    if (found.length > 0) fail(testCase, found, reply);
  };

  const fail = (testCase: FuzzCase, found: string[], reply: RawReply | null): void => {
    const item = likelyItem(testCase.request, reply, found);
    const message = `${found.join('; ')}${item === null ? '' : ` [likely ${item}]`}\n${describeRequest(testCase.request)}\n  (${testCase.note || 'no body mutation'})\n→ ${reply === null ? 'no answer' : describeReply(reply)}`;
    if (COLLECT) collected.push(message);
    else throw new FuzzFailure(message);
  };

  it.each(ENDPOINT_NAMES)(
    '%s',
    async (name) => {
      const result = await fc.check(fc.asyncProperty(cases.get(name)!, send), {
        seed: SEED,
        path: REPLAY_PATH,
        numRuns: RUNS,
        endOnFailure: COLLECT,
        // Shrinking sends a request per step: bounded, the best counterexample so far is kept.
        interruptAfterTimeLimit: 40_000,
      });
      if (result.failed) {
        const cause = result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
        throw new Error(
          `${adapter}/${store} ${name}: ${cause}\n(shrunk ${result.numShrinks} times; replay: TILECAST_FUZZ_SEED=${result.seed} ` +
            `TILECAST_FUZZ_PATH=${result.counterexamplePath} npx vitest run test/fuzz -t '${adapter} on ${store} storage ${name}')`,
        );
      }
      expect(result.numRuns).toBeGreaterThan(0);
    },
    60_000,
  );

  it('reached past authentication into validation and the handlers', () => {
    const count = (test: (status: number) => boolean) => [...statuses].filter(([s]) => test(Number(s))).reduce((sum, [, n]) => sum + n, 0);
    // Only meaningful after the whole set ran (not under a `-t` filter for one endpoint).
    if (count(() => true) < RUNS * ENDPOINT_NAMES.length) return;
    expect(count((s) => s >= 200 && s < 300)).toBeGreaterThan(RUNS);
    expect(statuses.get('422') ?? 0).toBeGreaterThan(RUNS);
    expect(statuses.get('401') ?? 0).toBeGreaterThan(0);
    expect(statuses.get('404') ?? 0).toBeGreaterThan(0);
  });
});
