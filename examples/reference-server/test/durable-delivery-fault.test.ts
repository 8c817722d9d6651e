/**
 * A kill -9 in the middle of device fan-outs loses no device's latest update
 * (docs/contract/durable-delivery.md#durable-goal): two built reference servers, A and B,
 * on one PostgreSQL database, pushing to the APNs test double. A accepts a widget update
 * for 10,000 devices and an activity's `end` for 1,000 devices and is killed with SIGKILL
 * while the double answers slowly; B resumes both jobs from their recorded progress once
 * their lease lapses (docs/contract/durable-delivery.md#durable-job-resume). Checked per
 * device on what the double received: the latest content arrived (answered 200) at least
 * once, no older activity content came after newer, and no more pushes went out twice
 * than one batch per job and interruption. Also: A killed before APNs answered any push,
 * and the database restarted (a TCP proxy in front of it stopped, then started) while B
 * resumes; those two on 1,000 devices per job, to keep the file's time in bounds.
 *
 * The devices, their APNs registrations and update tokens are written straight into the
 * store's tables, one statement per table (11,000 registrations one at a time, over HTTP or
 * through the Storage API, took most of a minute on a busy two-core machine); accounts,
 * widgets and activities go through @tilecast/storage-postgres, the updates through A's
 * HTTP API. The double holds its answers (`delayAnswers`) so that A is mid-way when it is
 * killed, or every push (`stallAll`) for the kill before any answer. Wall-clock deadlines
 * bound every wait: what is under test is the behaviour of child processes, which no fake
 * clock reaches.
 */
import type { ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import type { Storage } from '@tilecast/core';
import type { DeliveryJob } from '@tilecast/core/storage';
import { createPostgresStorage, migrate } from '@tilecast/storage-postgres';
import type { ApnsDouble, ReceivedPush } from '@tilecast/transport-apns/test-double';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from '../../../test/support/tcp-proxy.js';
import { startApnsDemo, type ApnsDemo } from '../src/apns-demo.js';
import { type RunningServer, startBuiltServer } from './built-server.js';

const DATABASE_URL = process.env.DATABASE_URL || undefined;
const NEEDS_SERVER = 'needs a real PostgreSQL server: set DATABASE_URL or run one on 127.0.0.1:5432';

/** Devices per recorded step of a job (the core's DELIVERY_BATCH): what a resume may send a second time. */
const BATCH = 500;
/**
 * Short, so that a dead instance's jobs are resumed soon; the instances renew every third
 * of it, by a statement given at most half of it.
 */
const LEASE_MS = 4_000;
const STATEMENT_TIMEOUT_MS = 2_000;
const POLL_MS = 250;
/** How long the double holds each answer while A works, so that A is mid-way when killed. */
const SLOW_MS = 100;
/** Bounds every wait for the double or the store. */
const DEADLINE_MS = 40_000;

const hex = (text: string) => createHash('sha256').update(text).digest('hex');
const devices = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(5, '0')}`);

/** `wall`: 10,000 phones with a widget; `live`: 1,000 phones with the Live Activity and a widget too. */
const WALL = { id: 'wall', token: 'tok_wall_fault', devices: devices('w', 10_000) };
const LIVE = { id: 'live', token: 'tok_live_fault', devices: devices('a', 1_000) };
type Account = typeof WALL;

const WIDGET_CONTENT = { template: 'switchboard', actions: [{ id: 'bell', label: 'Bell' }] };
const STARTED = { template: 'progress', progress: { value: 0.4 } };
const ENDED = { template: 'progress', progress: { value: 1 } };

const widgetsToken = (device: string) => hex(`widgets ${device}`);
const startToken = (device: string) => hex(`start ${device}`);
const updateToken = (device: string, slug: string) => hex(`update ${slug} ${device}`);

/**
 * Polls `check` every 100 ms until it holds; fails naming `what` past the deadline. Not
 * more often: the double answers in this process, and a check reads all it received.
 */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${DEADLINE_MS} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Aps {
  event?: string;
  timestamp?: number;
  'content-state'?: { state: string; content: { template: string; progress?: { value: number } } };
}
const apsOf = (push: ReceivedPush): Aps => (push.payload as { aps: Aps }).aps;
const isWidget = (push: ReceivedPush) => push.headers['apns-push-type'] === 'widgets';
const isActivity = (push: ReceivedPush) => push.headers['apns-push-type'] === 'liveactivity';
const isStart = (push: ReceivedPush) => isActivity(push) && apsOf(push).event === 'start';
const isEnd = (push: ReceivedPush) => isActivity(push) && apsOf(push).event === 'end';
const answered = (push: ReceivedPush) => push.status === 200;
/** The end's content as pushed (the server adds the template's defaults to what was sent). */
const endedContent = (aps: Aps) =>
  aps['content-state']?.state === 'IDLE' && aps['content-state'].content.template === ENDED.template && aps['content-state'].content.progress?.value === 1;
/** Which content is newer: start, update, end in that order. */
const RANK: Record<string, number> = { start: 0, update: 1, end: 2 };

if (!DATABASE_URL) {
  describe('durable delivery: SIGKILL mid-fan-out, two built reference servers', () => {
    it.skip(`all tests skipped: ${NEEDS_SERVER}`, () => {});
  });
}

describe.skipIf(!DATABASE_URL)('durable delivery: SIGKILL mid-fan-out, two built reference servers on PostgreSQL', () => {
  const schema = `ddf_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  let pool: pg.Pool;
  let store: Storage;
  let proxy: TcpProxy;
  const children: ChildProcess[] = [];
  let demo: ApnsDemo | undefined;
  /** The device of each token the double sees. */
  const deviceOfToken = new Map<string, string>();

  /**
   * Devices with their APNs registrations, one statement per table: the rows `upsertDevice`
   * and `setApnsRegistration` write, without a round trip per device.
   */
  const addDevices = async (account: Account, pushToStart: boolean) => {
    const ids = account.devices;
    await pool.query(`INSERT INTO "${schema}".devices (id, account_id, token_hash) SELECT id, $1, hash FROM unnest($2::text[], $3::text[]) AS d (id, hash)`, [
      account.id,
      ids,
      ids.map((id) => hex(`device ${id}`)),
    ]);
    await pool.query(
      `INSERT INTO "${schema}".apns_registrations (device_id, environment, push_to_start, widgets)
       SELECT id, 'sandbox', start, widgets FROM unnest($1::text[], $2::text[], $3::text[]) AS r (id, start, widgets)`,
      [ids, ids.map((id) => (pushToStart ? startToken(id) : null)), ids.map(widgetsToken)],
    );
    for (const id of ids) {
      deviceOfToken.set(widgetsToken(id), id);
      if (pushToStart) deviceOfToken.set(startToken(id), id);
    }
  };

  /** Each phone's update token of activity `slug`, as its Live Activity reports it after the start (one statement, as above). */
  const addUpdateTokens = async (slug: string) => {
    const ids = LIVE.devices;
    await pool.query(
      `INSERT INTO "${schema}".apns_activity_tokens (device_id, account_id, slug, token) SELECT id, $1, $2, token FROM unnest($3::text[], $4::text[]) AS t (id, token)`,
      [LIVE.id, slug, ids, ids.map((id) => updateToken(id, slug))],
    );
    for (const id of ids) deviceOfToken.set(updateToken(id, slug), id);
    // The store reads them as its own.
    expect(await store.getActivityPushToken(ids[0]!, LIVE.id, slug)).toBe(updateToken(ids[0]!, slug));
  };

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
    await migrate(pool, { schema });
    store = createPostgresStorage({ pool, schema, listen: false });
    const target = new URL(DATABASE_URL!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    for (const { id, token } of [WALL, LIVE]) await store.upsertAccount({ id, tokenHash: hex(token), subscription: 'active', activityQuota: 3 });
    await addDevices(WALL, false);
    await addDevices(LIVE, true);
  });

  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
    await demo?.close();
    demo = undefined;
  });

  afterAll(async () => {
    await proxy?.close();
    await pool?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool?.end();
  });

  const startServer = async (databaseUrl: string): Promise<RunningServer> => {
    const server = await startBuiltServer({
      DATABASE_URL: databaseUrl,
      TILECAST_DATABASE_SCHEMA: schema,
      TILECAST_DEMO: '0',
      TILECAST_DELIVERY_LEASE_MS: String(LEASE_MS),
      TILECAST_DELIVERY_POLL_MS: String(POLL_MS),
      TILECAST_PG_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      LOG_LEVEL: 'warn',
      ...demo!.env,
    });
    children.push(server.child);
    return server;
  };

  const patch = async (server: RunningServer, path: string, token: string, body: unknown) => {
    const reply = await fetch(`${server.url}${path}`, {
      method: 'PATCH',
      headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(reply.status, await reply.text()).toBe(200);
  };

  const pendingJobs = (): Promise<DeliveryJob[]> => store.listDeliveryJobs({ limit: 10 });

  interface Run {
    a: RunningServer;
    b: RunningServer;
    double: ApnsDouble;
    widget: { account: Account; slug: string };
    activity: string;
    /** Where this run's updates begin in what the double received (after the start). */
    since: number;
  }

  /**
   * A and B started (B through `bDatabaseUrl`), a new widget and activity, the activity
   * started through A and its start delivered to every phone, each phone's update token
   * stored; then A accepts the widget update and the end while B is paused (SIGSTOP), so
   * that A, not a poll of B's, claims both fresh jobs.
   */
  const acceptOnA = async (name: string, widgetAccount: Account, options: { bDatabaseUrl?: string; hold: 'slowly' | 'stall' }): Promise<Run> => {
    demo = await startApnsDemo();
    const double = demo.double;
    const [a, b] = await Promise.all([startServer(DATABASE_URL!), startServer(options.bDatabaseUrl ?? DATABASE_URL!)]);
    const widget = { account: widgetAccount, slug: `lights-${name}` };
    const activity = `build-${name}`;
    await store.putWidget({ accountId: widgetAccount.id, slug: widget.slug, template: 'switchboard', staleAfter: null, privacy: 'visible' });
    await store.putActivity({ accountId: LIVE.id, slug: activity, template: 'progress', dismissalDelayS: 0 });
    await patch(a, `/activity/${activity}`, LIVE.token, { state: 'ONGOING', content: STARTED });
    await until(
      async () => double.received.filter((p) => isStart(p) && answered(p)).length >= LIVE.devices.length && (await pendingJobs()).length === 0,
      'the start',
    );
    await addUpdateTokens(activity);
    const since = double.received.length;
    if (options.hold === 'stall') double.stallAll();
    else double.delayAnswers(SLOW_MS);
    b.child.kill('SIGSTOP');
    await patch(a, `/widget/${widget.slug}`, widgetAccount.token, { content: WIDGET_CONTENT });
    await patch(a, `/activity/${activity}`, LIVE.token, { state: 'IDLE', content: ENDED });
    return { a, b, double, widget, activity, since };
  };

  /**
   * Kills A with SIGKILL and, once the double has read all A sent (its streams closed),
   * lets B go on and answers fast again: what the double received before the index
   * returned came from A, the rest from B (which sends nothing before A's lease lapsed).
   */
  const killA = async (run: Run): Promise<number> => {
    run.a.child.kill('SIGKILL');
    expect(await run.a.exited).toEqual({ code: null, signal: 'SIGKILL' });
    await until(() => run.double.stats().openStreams === 0, "A's streams to close");
    run.b.child.kill('SIGCONT');
    run.double.delayAnswers(0);
    run.double.stallAll(false);
    return run.double.received.length;
  };

  /** The jobs left by A, with their recorded progress: the widget's and the activity's. */
  const jobsLeft = async (run: Run) => {
    const jobs = await pendingJobs();
    const widget = jobs.find((job) => job.kind === 'widget' && job.slug === run.widget.slug);
    const activity = jobs.find((job) => job.kind === 'activity' && job.slug === run.activity);
    expect(jobs).toHaveLength(2);
    return { widget: widget!, activity: activity! };
  };

  /**
   * Waits until every phone had both updates answered and no job is left, then checks what
   * each phone received: the latest content at least once, nothing older after it, and no
   * more pushes a second time than `interruptions` batches per job.
   */
  const expectEveryPhoneHasTheLatest = async (run: Run, interruptions: number) => {
    const { double, since } = run;
    const widgetPhones = run.widget.account.devices.length;
    const reached = (pushes: ReceivedPush[]) => new Set(pushes.filter(answered).map((p) => deviceOfToken.get(p.deviceToken)));
    await until(async () => {
      const pushes = double.received.slice(since);
      return (
        reached(pushes.filter(isWidget)).size === widgetPhones &&
        reached(pushes.filter(isEnd)).size === LIVE.devices.length &&
        (await pendingJobs()).length === 0
      );
    }, 'every phone to have both updates');
    const pushes = double.received.slice(since);
    // Nothing refused or failed; a push `delayed` or `stall` is one A handed over and never had answered.
    expect(pushes.filter((p) => p.status !== 200 && p.reason !== 'delayed' && p.reason !== 'stall')).toEqual([]);

    // A widgets push carries no content (the widget reads its latest): each phone had one after the update.
    const widgetPushes = pushes.filter(isWidget);
    expect(reached(widgetPushes).size).toBe(widgetPhones);
    expect(widgetPushes.length - widgetPhones).toBeLessThanOrEqual(BATCH * interruptions);

    // The Live Activity: each phone's pushes in arrival order never go back (timestamp, then
    // start < update < end), and its end, with the end's content, was answered at least once.
    const seen = new Map<string, Aps[]>();
    for (const push of double.received.filter(isActivity)) {
      const device = deviceOfToken.get(push.deviceToken)!;
      seen.set(device, [...(seen.get(device) ?? []), apsOf(push)]);
    }
    const backwards = [...seen].filter(([, list]) =>
      list.some((aps, i) => i > 0 && (aps.timestamp! < list[i - 1]!.timestamp! || RANK[aps.event!]! < RANK[list[i - 1]!.event!]!)),
    );
    expect(backwards).toEqual([]);
    const ends = pushes.filter(isEnd);
    expect(ends.filter((push) => !endedContent(apsOf(push)))).toEqual([]);
    expect(reached(ends).size).toBe(LIVE.devices.length);
    expect(ends.length - LIVE.devices.length).toBeLessThanOrEqual(BATCH * interruptions);
    return { widgetPushes, ends };
  };

  it('SIGKILL mid-fan-out: B resumes the update to 10,000 widgets and the end to 1,000 activities from their progress, every phone has the latest', async () => {
    const run = await acceptOnA('kill', WALL, { hold: 'slowly' });
    // Both jobs are in their second batch at least (a batch starts once the one before is recorded).
    await until(() => {
      const pushes = run.double.received.slice(run.since);
      return pushes.filter(isEnd).length > BATCH + 100 && pushes.filter(isWidget).length > BATCH + 100;
    }, "A's pushes");
    const split = await killA(run);
    const left = await jobsLeft(run);
    const fromA = run.double.received.slice(run.since, split);
    expect(fromA.filter(isEnd).length).toBeLessThan(LIVE.devices.length);
    expect(fromA.filter(isWidget).length).toBeLessThan(WALL.devices.length);
    expect(left.widget.cursor >= WALL.devices[BATCH - 1]!).toBe(true);
    expect(left.activity.cursor >= LIVE.devices[BATCH - 1]!).toBe(true);

    const { widgetPushes } = await expectEveryPhoneHasTheLatest(run, 1);
    // B sent exactly the phones after the recorded progress: some a second time, none skipped.
    const fromB = (which: (push: ReceivedPush) => boolean) =>
      run.double.received
        .slice(split)
        .filter(which)
        .map((p) => deviceOfToken.get(p.deviceToken)!)
        .sort();
    expect(fromB(isWidget)).toEqual(WALL.devices.filter((id) => id > left.widget.cursor));
    expect(widgetPushes.length).toBeGreaterThan(WALL.devices.length);
    // An end A had answered 200 made A forget that phone's update token
    // (docs/contract/apns.md#apns-forget-token-after-end), unless A died first: B reaches the
    // phones after the progress, all of those whose end A had not had answered among them.
    const endsFromB = fromB(isEnd);
    const answeredOnA = new Set(fromA.filter((p) => isEnd(p) && answered(p)).map((p) => deviceOfToken.get(p.deviceToken)));
    expect(endsFromB.filter((id) => id <= left.activity.cursor)).toEqual([]);
    const owed = LIVE.devices.filter((id) => id > left.activity.cursor && !answeredOnA.has(id));
    expect(owed.filter((id) => !endsFromB.includes(id))).toEqual([]);
    expect(await store.listDeadLetters({ limit: 10 })).toEqual([]);
  }, 90_000);

  it('SIGKILL before APNs answered any push: B sends both updates to every phone from the first', async () => {
    // The double holds every push: nothing A hands over is answered.
    const run = await acceptOnA('early', LIVE, { hold: 'stall' });
    // A holds both jobs (B is paused) and its first pushes wait at the double.
    await until(async () => {
      const jobs = await pendingJobs();
      return jobs.length === 2 && jobs.every((job) => job.leasedBy !== null) && run.double.received.length > run.since;
    }, "A's claims and first pushes");
    const split = await killA(run);
    expect(run.double.received.slice(run.since, split).filter(answered)).toEqual([]);
    const left = await jobsLeft(run);
    expect([left.widget.cursor, left.activity.cursor]).toEqual(['', '']);

    await expectEveryPhoneHasTheLatest(run, 1);
    expect(await store.listDeadLetters({ limit: 10 })).toEqual([]);
  }, 90_000);

  it('PostgreSQL restarted while B resumes (connections cut, new ones refused for a second): B still finishes both', async () => {
    const run = await acceptOnA('restart', LIVE, { bDatabaseUrl: proxy.via(DATABASE_URL!), hold: 'slowly' });
    await until(() => {
      const pushes = run.double.received.slice(run.since);
      return pushes.filter(isEnd).length > BATCH + 50 && pushes.filter(isWidget).length > BATCH + 50;
    }, "A's pushes");
    const split = await killA(run);
    // B is resuming: some of its pushes reached the double, not all.
    await until(() => run.double.received.length > split + 100, "B's first pushes");
    await proxy.stop();
    try {
      // Read past the proxy: B has not finished.
      expect((await pendingJobs()).length).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    } finally {
      await proxy.start();
    }

    // One batch per job again for the restart, besides A's.
    await expectEveryPhoneHasTheLatest(run, 2);
    expect(run.b.child.exitCode).toBeNull();
    // The pushes B could not try while the store was away were sent again, not kept as failed.
    expect(await store.listDeadLetters({ limit: 10 })).toEqual([]);
  }, 90_000);
});
