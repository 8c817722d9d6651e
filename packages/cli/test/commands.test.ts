/**
 * Every `tilecast` command against the real PostgreSQL server, on a schema of its own:
 * what it prints (text and `--json`), what it changes (read back through the store), its
 * errors and exit codes.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresStorage, LATEST_VERSION, type PostgresStorage } from '@tilecast/storage-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_URL, randomSchema, requireBuild, tilecast } from './support.js';

const TOKEN = /^tok_[A-Za-z0-9_-]{43}$/;
const DEVICE_TOKEN = /^dev_[A-Za-z0-9_-]{43}$/;

describe.skipIf(!DATABASE_URL)('tilecast on PostgreSQL', { timeout: 60_000 }, () => {
  const schema = randomSchema('cli');
  let pool: pg.Pool;
  let store: PostgresStorage;
  const env = () => ({ DATABASE_URL: DATABASE_URL!, TILECAST_DATABASE_SCHEMA: schema });
  /** `tilecast <args>` on this file's schema. */
  const cli = (...args: string[]) => tilecast(args, env());
  /** `tilecast <args> --json`, which must succeed: its one JSON document. */
  const cliJson = async (...args: string[]) => {
    const run = await tilecast([...args, '--json'], env());
    expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: '' });
    return JSON.parse(run.stdout) as Record<string, unknown>;
  };
  /** A failure: its exit code and its one line on stderr, nothing on stdout. */
  const expectFailure = async (args: string[], code: number, message: RegExp) => {
    for (const json of [[], ['--json']]) {
      const run = await tilecast([...args, ...json], env());
      expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code, stdout: '' });
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(message);
    }
  };

  beforeAll(async () => {
    requireBuild();
    pool = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
    store = createPostgresStorage({ pool, schema, listen: false });
  });

  afterAll(async () => {
    await pool?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await store?.close();
    await pool?.end();
  });

  it('every command but migrate refuses a schema that is not migrated, and creates nothing', async () => {
    await expectFailure(
      ['accounts', 'list'],
      2,
      new RegExp(`schema "${schema}" at 127\\.0\\.0\\.1:5432/\\S+ has no Tilecast tables: run \`tilecast migrate\` first`),
    );
    await expectFailure(['accounts', 'create', 'acme'], 2, /has no Tilecast tables/);
    const { rows } = await pool.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    expect(rows).toEqual([]);
  });

  it('a database that does not exist is a configuration error (exit 2), named without the password', async () => {
    const url = new URL(DATABASE_URL!);
    url.pathname = '/tilecast_no_such_database';
    url.password = 's3cret';
    const run = await tilecast(['accounts', 'list'], { DATABASE_URL: url.toString() });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /^tilecast accounts list: PostgreSQL at \S+\/tilecast_no_such_database refused the connection: .*tilecast_no_such_database.*\n$/,
    );
    expect(run.stderr).not.toContain('s3cret');
  });

  it('migrate creates the tables, then finds nothing to do (text and --json)', async () => {
    const first = await cli('migrate');
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(
      `Schema ${schema}: applied migration ${Array.from({ length: LATEST_VERSION }, (_, i) => i + 1).join(', ')}; now at version ${LATEST_VERSION}.\n`,
    );
    expect(await cliJson('migrate')).toEqual({ schema, applied: [], version: LATEST_VERSION });
    expect((await cli('migrate')).stdout).toBe(`Schema ${schema} is up to date (version ${LATEST_VERSION}).\n`);
  });

  it('--schema wins over TILECAST_DATABASE_SCHEMA', async () => {
    const other = randomSchema('cli_opt');
    try {
      const run = await tilecast(['migrate', '--schema', other, '--json'], env());
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({ schema: other, applied: expect.any(Array), version: LATEST_VERSION });
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS "${other}" CASCADE`);
    }
  });

  it('accounts create prints the token once; the account is stored with its settings and the token hashed', async () => {
    const text = await cli('accounts', 'create', 'acme');
    expect(text.code).toBe(0);
    const [summary, tokenLine, ...rest] = text.stdout.split('\n');
    expect(summary).toBe('Created account acme (subscription active, activity quota 5).');
    expect(tokenLine).toMatch(/^API token \(shown once, keep it now\): tok_\S+$/);
    expect(rest).toEqual(['']);
    const token = tokenLine!.split(': ')[1]!;
    expect(token).toMatch(TOKEN);
    expect((await store.findAccountByTokenHash((await store.getAccount('acme'))!.tokenHash))?.id).toBe('acme');
    expect(JSON.stringify(await store.getAccount('acme'))).not.toContain(token);

    const created = await cliJson('accounts', 'create', 'guest', '--subscription', 'none', '--quota', '2');
    expect(created).toEqual({ id: 'guest', subscription: 'none', activity_quota: 2, token: expect.stringMatching(TOKEN) });
    expect(await store.getAccount('guest')).toEqual({ id: 'guest', tokenHash: expect.any(String), subscription: 'none', activityQuota: 2 });
  });

  it('accounts create refuses an existing account (exit 1) and leaves it as it is; an invalid id or quota is exit 2', async () => {
    const before = await store.getAccount('acme');
    await expectFailure(
      ['accounts', 'create', 'acme', '--quota', '9'],
      1,
      /^tilecast accounts create: account "acme" already exists \(left as it is; `tilecast tokens rotate acme` issues a new token\)$/m,
    );
    expect(await store.getAccount('acme')).toEqual(before);
    await expectFailure(['accounts', 'create', 'bad id'], 2, /^tilecast accounts create: invalid id "bad id": must be 1-64 characters/m);
    await expectFailure(
      ['accounts', 'create', 'big', '--quota', '10001'],
      2,
      /^tilecast accounts create: invalid --quota 10001: Invalid value: Expected <=10000 but received 10001$/m,
    );
    expect(await store.getAccount('big')).toBeNull();
  });

  it('accounts list shows every account, sorted, and never a token', async () => {
    const text = await cli('accounts', 'list');
    expect(text.code).toBe(0);
    expect(text.stdout).toBe('ACCOUNT  SUBSCRIPTION  QUOTA\nacme     active        5\nguest    none          2\n');
    const json = await cliJson('accounts', 'list');
    expect(json).toEqual({
      accounts: [
        { id: 'acme', subscription: 'active', activity_quota: 5 },
        { id: 'guest', subscription: 'none', activity_quota: 2 },
      ],
    });
    expect(JSON.stringify(json)).not.toMatch(/tok_|token/);
  });

  it('accounts list pages through more accounts than one page holds', async () => {
    const other = randomSchema('cli_many');
    try {
      const many = createPostgresStorage({ pool, schema: other, listen: false });
      expect((await tilecast(['migrate', '--schema', other], env())).code).toBe(0);
      const ids = Array.from({ length: 1_203 }, (_, i) => `a${String(i).padStart(4, '0')}`);
      const values = ids.map((id, i) => `('${id}', '${String(i).padStart(64, '0')}', 'active', 1)`).join(',');
      await pool.query(`INSERT INTO "${other}".accounts (id, token_hash, subscription, activity_quota) VALUES ${values}`);
      const run = await tilecast(['accounts', 'list', '--json', '--schema', other], env());
      expect(run.code).toBe(0);
      expect((JSON.parse(run.stdout) as { accounts: { id: string }[] }).accounts.map((a) => a.id)).toEqual(ids);
      await many.close();
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS "${other}" CASCADE`);
    }
  });

  it('tokens rotate prints a new token once; only the new one matches', async () => {
    const old = (await store.getAccount('acme'))!.tokenHash;
    const text = await cli('tokens', 'rotate', 'acme');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^Rotated the API token of acme; the old one no longer works\.\nAPI token \(shown once, keep it now\): tok_\S+\n$/);
    const rotated = (await store.getAccount('acme'))!.tokenHash;
    expect(rotated).not.toBe(old);
    expect(await store.findAccountByTokenHash(old)).toBeNull();
    const json = await cliJson('tokens', 'rotate', 'acme');
    expect(json).toEqual({ account: 'acme', token: expect.stringMatching(TOKEN) });
    expect((await store.getAccount('acme'))!.tokenHash).not.toBe(rotated);
    await expectFailure(['tokens', 'rotate', 'nobody'], 1, /^tilecast tokens rotate: no account "nobody"$/m);
  });

  it('subscription set and quota set change the account; an unknown account is exit 1', async () => {
    expect((await cli('subscription', 'set', 'guest', 'active')).stdout).toBe('Subscription of guest: active.\n');
    expect(await cliJson('subscription', 'set', 'acme', 'none')).toEqual({ account: 'acme', subscription: 'none' });
    expect((await store.getAccount('acme'))?.subscription).toBe('none');
    expect((await store.getAccount('guest'))?.subscription).toBe('active');
    expect(await cliJson('subscription', 'set', 'acme', 'active')).toEqual({ account: 'acme', subscription: 'active' });

    expect((await cli('quota', 'set', 'acme', '3')).stdout).toBe('Activity quota of acme: 3.\n');
    expect(await cliJson('quota', 'set', 'guest', '0')).toEqual({ account: 'guest', activity_quota: 0 });
    expect(await store.getAccount('acme')).toMatchObject({ subscription: 'active', activityQuota: 3 });
    expect(await store.getAccount('guest')).toMatchObject({ activityQuota: 0 });

    await expectFailure(['subscription', 'set', 'nobody', 'none'], 1, /^tilecast subscription set: no account "nobody"$/m);
    await expectFailure(['quota', 'set', 'nobody', '1'], 1, /^tilecast quota set: no account "nobody"$/m);
    await expectFailure(['quota', 'set', 'acme', '10001'], 2, /^tilecast quota set: invalid value 10001: Invalid value: Expected <=10000/m);
  });

  it('activities create and delete', async () => {
    const text = await cli('activities', 'create', 'acme', 'build', '--template', 'progress');
    expect(text.stdout).toBe('Created activity acme/build (template progress, dismissal delay 0 s, tokens delivery).\n');
    expect(await store.getActivity('acme', 'build')).toMatchObject({ delivery: 'tokens', frequentUpdates: false });
    expect(await cliJson('activities', 'create', 'acme', 'deploy', '--template', 'generic', '--dismissal-delay', '600')).toEqual({
      account: 'acme',
      slug: 'deploy',
      template: 'generic',
      dismissal_delay_s: 600,
      delivery: 'tokens',
      frequent_updates: false,
    });
    expect(await store.getActivity('acme', 'deploy')).toMatchObject({ template: 'generic', dismissalDelayS: 600 });
    const broadcast = await cli('activities', 'create', 'acme', 'match', '--template', 'monitor', '--delivery', 'broadcast', '--frequent-updates');
    expect(broadcast.stdout).toBe('Created activity acme/match (template monitor, dismissal delay 0 s, broadcast delivery, frequent updates).\n');
    expect(await store.getActivity('acme', 'match')).toMatchObject({ delivery: 'broadcast', frequentUpdates: true });
    expect(await cliJson('activities', 'create', 'acme', 'quiz', '--template', 'monitor', '--delivery', 'broadcast')).toMatchObject({
      delivery: 'broadcast',
      frequent_updates: false,
    });
    expect((await store.listActivities('acme')).map((a) => a.slug)).toEqual(['build', 'deploy', 'match', 'quiz']);
    await expectFailure(
      ['activities', 'create', 'acme', 'late', '--template', 'progress', '--delivery', 'channel'],
      2,
      /^tilecast activities create: --delivery must be one of tokens, broadcast, got "channel"$/m,
    );
    await expectFailure(['activities', 'create', 'acme', 'late', '--template', 'progress', '--frequent-updates=yes'], 2, /--frequent-updates takes no value/);
    expect(await store.getActivity('acme', 'late')).toBeNull();
    for (const slug of ['match', 'quiz']) await cliJson('activities', 'delete', 'acme', slug);

    await expectFailure(
      ['activities', 'create', 'acme', 'build', '--template', 'generic'],
      1,
      /account "acme" already has an activity "build" \(left as it is\)/,
    );
    expect((await store.getActivity('acme', 'build'))?.template).toBe('progress');
    await expectFailure(['activities', 'create', 'nobody', 'build', '--template', 'progress'], 1, /^tilecast activities create: no account "nobody"$/m);
    await expectFailure(
      ['activities', 'create', 'acme', 'late', '--template', 'progress', '--dismissal-delay', '14401'],
      2,
      /^tilecast activities create: invalid --dismissal-delay 14401: Invalid value/m,
    );

    expect(await cliJson('activities', 'delete', 'acme', 'deploy')).toEqual({ account: 'acme', slug: 'deploy', deleted: true });
    expect((await cli('activities', 'delete', 'acme', 'build')).stdout).toBe('Deleted activity acme/build.\n');
    expect(await store.listActivities('acme')).toEqual([]);
    await expectFailure(['activities', 'delete', 'acme', 'build'], 1, /^tilecast activities delete: no activity "acme\/build"$/m);
  });

  it('widgets create and delete', async () => {
    expect((await cli('widgets', 'create', 'acme', 'lights', '--template', 'switchboard')).stdout).toBe(
      'Created widget acme/lights (template switchboard, stale after never, visible).\n',
    );
    expect(await cliJson('widgets', 'create', 'acme', 'boiler', '--template', 'gauge', '--stale-after', '3600', '--privacy', 'hidden_when_locked')).toEqual({
      account: 'acme',
      slug: 'boiler',
      template: 'gauge',
      stale_after: 3600,
      privacy: 'hidden_when_locked',
    });
    expect(await store.getWidget('acme', 'boiler')).toMatchObject({ template: 'gauge', staleAfter: 3600, privacy: 'hidden_when_locked', content: null });
    await expectFailure(['widgets', 'create', 'acme', 'lights', '--template', 'gauge'], 1, /account "acme" already has a widget "lights" \(left as it is\)/);
    expect((await store.getWidget('acme', 'lights'))?.template).toBe('switchboard');
    await expectFailure(
      ['widgets', 'create', 'acme', 'x', '--template', 'gauge', '--stale-after', '59'],
      2,
      /^tilecast widgets create: invalid --stale-after 59: Invalid value: Expected >=60/m,
    );
    await expectFailure(['widgets', 'create', 'nobody', 'x', '--template', 'gauge'], 1, /no account "nobody"/);

    expect(await cliJson('widgets', 'delete', 'acme', 'boiler')).toEqual({ account: 'acme', slug: 'boiler', deleted: true });
    expect(await store.getWidget('acme', 'boiler')).toBeNull();
    await expectFailure(['widgets', 'delete', 'acme', 'boiler'], 1, /^tilecast widgets delete: no widget "acme\/boiler"$/m);
  });

  it('devices register prints the device token once; remove deletes the device', async () => {
    const text = await cli('devices', 'register', 'guest', 'guest-phone');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^Registered device guest-phone of guest\.\nDevice token \(shown once, keep it now\): dev_\S+\n$/);
    expect(text.stdout.split(': ')[1]!.trim()).toMatch(DEVICE_TOKEN);
    const json = await cliJson('devices', 'register', 'acme', 'acme-phone');
    expect(json).toEqual({ id: 'acme-phone', account: 'acme', token: expect.stringMatching(DEVICE_TOKEN) });
    expect(await store.getDevice('acme-phone')).toEqual({ id: 'acme-phone', accountId: 'acme', tokenHash: expect.any(String) });

    const before = await store.getDevice('guest-phone');
    await expectFailure(
      ['devices', 'register', 'acme', 'guest-phone'],
      1,
      /^tilecast devices register: device "guest-phone" already exists \(left as it is\)$/m,
    );
    expect(await store.getDevice('guest-phone')).toEqual(before);
    await expectFailure(['devices', 'register', 'nobody', 'x-phone'], 1, /no account "nobody"/);

    expect(await cliJson('devices', 'remove', 'acme-phone')).toEqual({ id: 'acme-phone', deleted: true });
    expect(await store.getDevice('acme-phone')).toBeNull();
    await expectFailure(['devices', 'remove', 'acme-phone'], 1, /^tilecast devices remove: no device "acme-phone"$/m);
  });

  it('widgets share and unshare', async () => {
    expect((await cli('widgets', 'share', 'acme', 'lights', 'guest-phone')).stdout).toBe('Shared widget acme/lights with device guest-phone.\n');
    expect(await cliJson('widgets', 'share', 'acme', 'lights', 'guest-phone')).toEqual({
      account: 'acme',
      slug: 'lights',
      device: 'guest-phone',
      shared: true,
    });
    expect(await store.listWidgetShares('acme', 'lights')).toEqual(['guest-phone']);
    await expectFailure(['widgets', 'share', 'acme', 'nope', 'guest-phone'], 1, /^tilecast widgets share: no widget "acme\/nope"$/m);
    await expectFailure(['widgets', 'share', 'acme', 'lights', 'nope'], 1, /^tilecast widgets share: no device "nope"$/m);

    expect(await cliJson('widgets', 'unshare', 'acme', 'lights', 'guest-phone')).toEqual({
      account: 'acme',
      slug: 'lights',
      device: 'guest-phone',
      shared: false,
    });
    expect(await store.listWidgetShares('acme', 'lights')).toEqual([]);
    await expectFailure(['widgets', 'unshare', 'acme', 'lights', 'guest-phone'], 1, /widget "acme\/lights" is not shared with device "guest-phone"/);
  });

  it("widgets share refuses a device of the widget's own account (it shows the widget already), and shares nothing", async () => {
    await cliJson('devices', 'register', 'acme', 'own-phone');
    await expectFailure(
      ['widgets', 'share', 'acme', 'lights', 'own-phone'],
      1,
      /^tilecast widgets share: device "own-phone" belongs to account "acme": it shows widget "acme\/lights" already$/m,
    );
    expect(await store.listWidgetShares('acme', 'lights')).toEqual([]);
    expect(await store.listWidgetsSharedWith('own-phone')).toEqual([]);
    expect(await cliJson('devices', 'remove', 'own-phone')).toEqual({ id: 'own-phone', deleted: true });
  });

  it('seed apply creates only what is missing, as at start-up; tokens are printed only for what it created', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tilecast-cli-'));
    const seedPath = join(dir, 'seed.json');
    await writeFile(
      seedPath,
      JSON.stringify({
        accounts: [
          {
            id: 'acme',
            token: 'tok_acme_from_seed',
            activity_quota: 9,
            devices: [{ id: 'acme-tablet', token: 'dev_acme_tablet' }],
            widgets: [{ slug: 'lights', template: 'gauge', shared_with: ['shop-phone'] }],
          },
          {
            id: 'shop',
            devices: [{ id: 'shop-phone' }],
            activities: [
              { slug: 'orders', template: 'monitor' },
              { slug: 'match', template: 'monitor', delivery: 'broadcast', frequent_updates: true },
            ],
          },
        ],
      }),
    );
    const acmeBefore = await store.getAccount('acme');
    const first = await cliJson('seed', 'apply', seedPath);
    expect(first).toEqual({
      accounts: [
        { id: 'acme', created: false, token: null },
        { id: 'shop', created: true, token: expect.stringMatching(TOKEN) },
      ],
      devices: [
        { id: 'acme-tablet', account: 'acme', created: true, token: 'dev_acme_tablet' },
        { id: 'shop-phone', account: 'shop', created: true, token: expect.stringMatching(DEVICE_TOKEN) },
      ],
    });
    // The existing account and widget are left as they are (token, quota, template); the share is applied.
    expect(await store.getAccount('acme')).toEqual(acmeBefore);
    expect((await store.getWidget('acme', 'lights'))?.template).toBe('switchboard');
    expect(await store.listWidgetShares('acme', 'lights')).toEqual(['shop-phone']);
    expect(await store.getActivity('shop', 'orders')).toMatchObject({ template: 'monitor', delivery: 'tokens', frequentUpdates: false });
    expect(await store.getActivity('shop', 'match')).toMatchObject({ template: 'monitor', delivery: 'broadcast', frequentUpdates: true });

    const again = await cli('seed', 'apply', seedPath);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(
      [
        'account acme: exists, left as it is',
        'account shop: exists, left as it is',
        'device acme-tablet of acme: exists, left as it is',
        'device shop-phone of shop: exists, left as it is',
        '',
      ].join('\n'),
    );
    expect(again.stdout).not.toMatch(/tok_|dev_/);

    await writeFile(join(dir, 'broken.json'), '{"accounts": [');
    await expectFailure(['seed', 'apply', join(dir, 'broken.json')], 2, /the seed file .*broken\.json is not JSON/);
    await expectFailure(['seed', 'apply', join(dir, 'absent.json')], 2, /cannot read the seed file .*absent\.json: ENOENT/);
    await writeFile(join(dir, 'invalid.json'), JSON.stringify({ accounts: [{ id: 'x', colour: 'red' }] }));
    await expectFailure(
      ['seed', 'apply', join(dir, 'invalid.json')],
      2,
      /^tilecast seed apply: the seed file .*\.json is invalid: accounts\.0\.colour: Invalid key/m,
    );
    await writeFile(
      join(dir, 'dangling.json'),
      JSON.stringify({ accounts: [{ id: 'acme', widgets: [{ slug: 'lights', template: 'gauge', shared_with: ['ghost'] }] }] }),
    );
    await expectFailure(['seed', 'apply', join(dir, 'dangling.json')], 1, /^tilecast seed apply: no device "ghost"$/m);
  });

  // Needs the PostgreSQL store's delivery jobs and dead letters (issue 34, item 1).
  it('deliveries lists the pending jobs and, with --failed, the dead letters newest first', async () => {
    expect((await cli('deliveries')).stdout).toBe('No pending deliveries.\n');
    expect((await cli('deliveries', '--failed')).stdout).toBe('No dead letters in the last 7 days.\n');
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const written = await store.setWidgetContent('acme', 'lights', { content: { title: 'Lights' }, staleAfter: undefined, now });
    if (!written.ok) throw new Error(`widget not written: ${written.reason}`);
    expect(await cliJson('deliveries')).toEqual({
      deliveries: [
        {
          account: 'acme',
          kind: 'widget',
          slug: 'lights',
          phase: 'changed',
          cursor: null,
          due_at: iso(written.job.dueAt),
          created_at: iso(now),
          leased_by: null,
          lease_until: null,
          resumed: 0,
        },
      ],
    });
    const table = await cli('deliveries', '--account', 'acme');
    expect(table.stdout).toMatch(/^RESOURCE +PHASE +PROGRESS +DUE +AGE +LEASE +RESUMED\nwidget acme\/lights {2}changed {2}not started {2}\S.* {2}- +0\n$/);
    expect((await cli('deliveries', '--account', 'shop')).stdout).toBe('No pending deliveries for account shop.\n');
    await expectFailure(['deliveries', '--account', 'nobody'], 1, /^tilecast deliveries: no account "nobody"$/m);
    await expectFailure(['deliveries', '--limit', '1001'], 2, /^tilecast deliveries: invalid --limit 1001: Invalid value: Expected <=1000/m);

    const letter = { accountId: 'acme', kind: 'widget' as const, slug: 'lights', transport: 'apns' };
    await store.addDeadLetters([
      { ...letter, deviceId: 'acme-tablet', reason: 'refused: BadDeviceToken', at: now - 60_000 },
      { ...letter, deviceId: 'shop-phone', reason: 'dropped: retries used up', at: now - 1_000 },
    ]);
    expect(await cliJson('deliveries', '--failed')).toEqual({
      dead_letters: [
        { account: 'acme', kind: 'widget', slug: 'lights', device: 'shop-phone', transport: 'apns', reason: 'dropped: retries used up', at: iso(now - 1_000) },
        { account: 'acme', kind: 'widget', slug: 'lights', device: 'acme-tablet', transport: 'apns', reason: 'refused: BadDeviceToken', at: iso(now - 60_000) },
      ],
    });
    const newest = await cli('deliveries', '--failed', '--limit', '1');
    expect(newest.stdout.split('\n')).toEqual([
      expect.stringMatching(/^RESOURCE {12}DEVICE {6}TRANSPORT {2}TIME +REASON$/),
      expect.stringMatching(/^widget acme\/lights {2}shop-phone {2}apns {7}\S+Z \(\d+s ago\) {2}dropped: retries used up$/),
      'The newest 1 shown; there may be more (--limit up to 1000 shows more, --account narrows).',
      '',
    ]);
  });

  it('accounts delete removes the account with what it owns; an unknown account is exit 1', async () => {
    expect((await cli('accounts', 'delete', 'shop')).stdout).toBe('Deleted account shop with its activities, widgets, devices and events.\n');
    expect(await store.getAccount('shop')).toBeNull();
    expect(await store.getDevice('shop-phone')).toBeNull();
    expect(await store.listActivities('shop')).toEqual([]);
    expect(await cliJson('accounts', 'delete', 'guest')).toEqual({ id: 'guest', deleted: true });
    expect(await store.getDevice('guest-phone')).toBeNull();
    await expectFailure(['accounts', 'delete', 'guest'], 1, /^tilecast accounts delete: no account "guest"$/m);
    expect((await cliJson('accounts', 'list')).accounts).toEqual([{ id: 'acme', subscription: 'active', activity_quota: 3 }]);
  });
});
