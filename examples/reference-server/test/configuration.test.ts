/**
 * The configuration table (src/settings.ts) is the one source of the variables: the
 * README's table lists exactly its variables, defaults and meanings, every problem is
 * reported at once with one line each, and unknown TILECAST_* variables are warned about.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { oneOf, SettingProblem } from '../src/setting-parsers.js';
import { SETTINGS } from '../src/settings.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** The rows of the table under `## Configuration`. */
function readmeRows(): string[] {
  const section = readme.split(/^## /m).find((part) => part.startsWith('Configuration\n'));
  expect(section, 'the README has a "## Configuration" section').toBeDefined();
  return section!.split('\n').filter((line) => line.startsWith('| `'));
}

const expectedRows = Object.entries(SETTINGS).map(
  ([name, setting]) => `| \`${name}\` | ${setting.default === null ? '—' : `\`${setting.default}\``} | ${setting.description} |`,
);

describe('the configuration table', () => {
  it("the README's table lists exactly the variables the server reads, with their defaults and meanings", () => {
    // On a failure, the expected rows are printed: paste them into the README.
    expect(readmeRows(), expectedRows.join('\n')).toEqual(expectedRows);
  });

  it('the README has one table of variables, and no row elsewhere names one', () => {
    const rowsNamingASetting = readme.split('\n').filter((line) => /^\| `[A-Z_]+` \|/.test(line));
    expect(rowsNamingASetting).toEqual(expectedRows);
  });

  it('every default is valid and no description breaks a Markdown table row', () => {
    expect(loadConfig({}).problems).toEqual([]);
    for (const setting of Object.values(SETTINGS)) expect(setting.description).not.toMatch(/[|\n]/);
  });
});

describe('validation', () => {
  it('reports every problem at once, one line each, in table order', () => {
    const { config, problems } = loadConfig({
      PORT: '80800',
      DATABASE_URL: 'not-a-url',
      TILECAST_PG_ACQUIRE_TIMEOUT_MS: '5s',
      TILECAST_DEMO_ROTATE: 'true',
      TILECAST_APNS_KEY_ID: 'ABCDE12345',
    });
    expect(config).toBeNull();
    expect(problems).toEqual([
      'PORT must be an integer 0-65535, got "80800"',
      'DATABASE_URL is not a URL: expected postgres://user:password@host:5432/database',
      'TILECAST_PG_ACQUIRE_TIMEOUT_MS must be a positive integer (milliseconds, at most 2147483647), got "5s"',
      'TILECAST_DEMO_ROTATE must be 1 (on) or 0 (off), got "true"',
      'APNs settings incomplete: TILECAST_APNS_KEY_FILE, TILECAST_APNS_TEAM_ID, TILECAST_APNS_BUNDLE_ID missing (set all of TILECAST_APNS_KEY_FILE, TILECAST_APNS_KEY_ID, TILECAST_APNS_TEAM_ID, TILECAST_APNS_BUNDLE_ID, or none)',
    ]);
  });

  it('DATABASE_URL: a postgres:// or postgresql:// URL, never echoed (it may hold a password)', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u:secret@db.internal:5432/tilecast' }).config?.databaseUrl).toBe(
      'postgres://u:secret@db.internal:5432/tilecast',
    );
    expect(loadConfig({ DATABASE_URL: 'postgresql://db/tilecast' }).config?.databaseUrl).toBe('postgresql://db/tilecast');
    expect(loadConfig({ DATABASE_URL: 'mysql://u:secret@db/tilecast' }).problems).toEqual([
      'DATABASE_URL must be a postgres:// or postgresql:// URL, got a mysql:// URL',
    ]);
    expect(loadConfig({ DATABASE_URL: 'u:secret@db/tilecast' }).problems).toEqual(['DATABASE_URL must be a postgres:// or postgresql:// URL, got a u:// URL']);
    expect(loadConfig({ DATABASE_URL: 'db.internal secret' }).problems).toEqual([
      'DATABASE_URL is not a URL: expected postgres://user:password@host:5432/database',
    ]);
  });

  it('files must exist and be files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tilecast-config-'));
    expect(loadConfig({ TILECAST_SEED: join(dir, 'seed.json') }).problems).toEqual([
      `TILECAST_SEED names a file that cannot be read: ${join(dir, 'seed.json')} (no such file)`,
    ]);
    expect(loadConfig({ TILECAST_SEED: dir }).problems).toEqual([`TILECAST_SEED must name a file, ${dir} is a directory`]);
  });

  it('the schema name follows the rule of @tilecast/storage-postgres', () => {
    expect(loadConfig({ TILECAST_DATABASE_SCHEMA: 'tilecast_2' }).config?.databaseSchema).toBe('tilecast_2');
    expect(loadConfig({ TILECAST_DATABASE_SCHEMA: 'tile-cast' }).problems).toEqual([
      'TILECAST_DATABASE_SCHEMA must be letters, digits and _ (at most 48, not starting with a digit), got "tile-cast"',
    ]);
  });

  it('HOST: an IP address or a host name, without a port or a scheme', () => {
    for (const good of ['0.0.0.0', '::', '127.0.0.1', 'localhost', 'tilecast-a', 'api.example.com']) expect(loadConfig({ HOST: good }).config?.host).toBe(good);
    for (const bad of ['localhost:8080', 'http://localhost', 'my host', '-x']) {
      expect(loadConfig({ HOST: bad }).problems).toEqual([`HOST must be an IP address or a host name (no port, no scheme), got "${bad}"`]);
    }
  });

  it('a word from a list (for settings such as a log level)', () => {
    const level = oneOf(['debug', 'info', 'warn']);
    expect(level('warn', 'LEVEL')).toBe('warn');
    expect(() => level('loud', 'LEVEL')).toThrow(new SettingProblem('LEVEL must be one of debug, info, warn, got "loud"'));
  });

  it('TILECAST_DELIVERY_*: the delivery options, read as they are, with the core defaults when unset', () => {
    expect(loadConfig({}).config?.delivery).toEqual({ leaseMs: 30_000, pollMs: 2_000, maxJobs: 8, lateAfterMs: 60_000 });
    expect(
      loadConfig({
        TILECAST_DELIVERY_LEASE_MS: '12000',
        TILECAST_DELIVERY_POLL_MS: '250',
        TILECAST_DELIVERY_MAX_JOBS: '32',
        TILECAST_DELIVERY_LATE_AFTER_MS: '5000',
      }).config?.delivery,
    ).toEqual({ leaseMs: 12_000, pollMs: 250, maxJobs: 32, lateAfterMs: 5_000 });
    expect(
      loadConfig({
        TILECAST_DELIVERY_LEASE_MS: '999',
        TILECAST_DELIVERY_POLL_MS: '0',
        TILECAST_DELIVERY_MAX_JOBS: '1001',
        TILECAST_DELIVERY_LATE_AFTER_MS: '1m',
      }).problems,
    ).toEqual([
      'TILECAST_DELIVERY_LEASE_MS must be an integer 1000-2147483647, got "999"',
      'TILECAST_DELIVERY_POLL_MS must be a positive integer (milliseconds, at most 2147483647), got "0"',
      'TILECAST_DELIVERY_MAX_JOBS must be an integer 1-1000, got "1001"',
      'TILECAST_DELIVERY_LATE_AFTER_MS must be a positive integer (milliseconds, at most 2147483647), got "1m"',
    ]);
    expect(loadConfig({ TILECAST_DELIVERY_MAX_JOBS: '0' }).problems).toEqual(['TILECAST_DELIVERY_MAX_JOBS must be an integer 1-1000, got "0"']);
  });

  it('with PostgreSQL, the delivery lease is at least twice the statement deadline (a renewal is a statement)', () => {
    const database = { DATABASE_URL: 'postgres://db/tilecast', TILECAST_PG_STATEMENT_TIMEOUT_MS: '8000' };
    expect(loadConfig({ ...database, TILECAST_DELIVERY_LEASE_MS: '16000' }).problems).toEqual([]);
    expect(loadConfig({ ...database, TILECAST_DELIVERY_LEASE_MS: '15999' }).problems).toEqual([
      'TILECAST_DELIVERY_LEASE_MS (15999) must be at least twice TILECAST_PG_STATEMENT_TIMEOUT_MS (8000): a lease is renewed by a statement that may take that long',
    ]);
    // In memory there is no statement: any lease the setting accepts.
    expect(loadConfig({ TILECAST_PG_STATEMENT_TIMEOUT_MS: '8000', TILECAST_DELIVERY_LEASE_MS: '1000' }).problems).toEqual([]);
  });

  it('an empty value counts as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '', TILECAST_SEED: '' }).config).toMatchObject({ port: 8080, databaseUrl: null, seedPath: null });
  });

  it('an unknown TILECAST_* variable is a warning naming the nearest setting, not a failure', () => {
    const { config, warnings } = loadConfig({
      TILECAST_SHUTDOWN_GRACE: '5000',
      TILECAST_PG_CONECT_TIMEOUT_MS: '100',
      TILECAST_FANCY: '1',
      // Read by the repository's other programs (apns-demo, smart-home): no warning.
      TILECAST_URL: 'x',
      TILECAST_TOKEN: 'x',
      OTHER: '1',
    });
    expect(config).not.toBeNull();
    expect(warnings).toEqual([
      'TILECAST_FANCY is not a setting of the reference server and is ignored',
      'TILECAST_PG_CONECT_TIMEOUT_MS is not a setting of the reference server and is ignored (did you mean TILECAST_PG_CONNECT_TIMEOUT_MS?)',
      'TILECAST_SHUTDOWN_GRACE is not a setting of the reference server and is ignored (did you mean TILECAST_SHUTDOWN_GRACE_MS?)',
    ]);
  });
});
