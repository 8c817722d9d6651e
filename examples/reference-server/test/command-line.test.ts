/**
 * The built server's command line (`node dist/main.js`, what `npm start` and the container
 * run): `--help` prints the settings and exits 0 without touching the database, and each
 * kind of bad setting stops the start with its one line and exit code 2, no stack trace.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../src/settings.js';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));

/** Runs the built server with only `env` set (and PATH), bounded. */
function run(args: string[], env: Record<string, string>) {
  const result = spawnSync(process.execPath, [main, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 15_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A port nothing listens on: a server that tried to reach it would fail with ECONNREFUSED, not exit 0. */
const UNREACHABLE_DATABASE = 'postgres://postgres@127.0.0.1:1/none';

describe('node dist/main.js --help', () => {
  for (const flag of ['--help', '-h']) {
    it(`${flag}: usage and every setting with its default, exit 0, no database`, () => {
      const { code, stdout, stderr } = run([flag], { DATABASE_URL: UNREACHABLE_DATABASE, PORT: 'not checked for --help' });
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(stdout).toMatch(/^Usage: node examples\/reference-server\/dist\/main\.js \[--help \| -h\]\n/);
      for (const [name, setting] of Object.entries(SETTINGS)) {
        expect(stdout).toContain(`\n  ${name}${setting.default === null ? '\n' : ` (default ${setting.default})\n`}`);
      }
      for (const line of stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
    });
  }

  it('any other argument is refused with exit 2', () => {
    expect(run(['--port', '80'], {})).toEqual({
      code: 2,
      stdout: '',
      stderr: 'unknown argument --port: the server takes only --help; it is configured by environment variables\n',
    });
  });
});

const dir = mkdtempSync(join(tmpdir(), 'tilecast-cli-'));

/** One bad value of each kind, and the line it gets. */
const BAD: [string, Record<string, string>, string][] = [
  ['a DATABASE_URL that is not a URL', { DATABASE_URL: 'not-a-url' }, 'DATABASE_URL is not a URL: expected postgres://user:password@host:5432/database'],
  [
    'a DATABASE_URL of another database',
    { DATABASE_URL: 'mysql://db/tilecast' },
    'DATABASE_URL must be a postgres:// or postgresql:// URL, got a mysql:// URL',
  ],
  ['a port out of range', { PORT: '65536' }, 'PORT must be an integer 0-65535, got "65536"'],
  [
    'a duration that is not a positive integer',
    { TILECAST_SSE_PING_MS: '20s' },
    'TILECAST_SSE_PING_MS must be a positive integer (milliseconds, at most 2147483647), got "20s"',
  ],
  ['a flag that is not 1 or 0', { TILECAST_DEMO_ROTATE: 'yes' }, 'TILECAST_DEMO_ROTATE must be 1 (on) or 0 (off), got "yes"'],
  [
    'a file that does not exist',
    { TILECAST_SEED: join(dir, 'seed.json') },
    `TILECAST_SEED names a file that cannot be read: ${join(dir, 'seed.json')} (no such file)`,
  ],
  [
    'a text that breaks its rule',
    { TILECAST_DATABASE_SCHEMA: 'my schema' },
    'TILECAST_DATABASE_SCHEMA must be letters, digits and _ (at most 48, not starting with a digit), got "my schema"',
  ],
  [
    'a half-set group (APNs)',
    { TILECAST_APNS_KEY_ID: 'ABCDE12345', TILECAST_APNS_TEAM_ID: 'TEAM123456' },
    'APNs settings incomplete: TILECAST_APNS_KEY_FILE, TILECAST_APNS_BUNDLE_ID missing (set all of TILECAST_APNS_KEY_FILE, TILECAST_APNS_KEY_ID, TILECAST_APNS_TEAM_ID, TILECAST_APNS_BUNDLE_ID, or none)',
  ],
];

describe('a bad setting stops the start with one line and exit code 2', () => {
  for (const [kind, env, line] of BAD) {
    it(kind, () => {
      const { code, stdout, stderr } = run([], env);
      expect(stdout).toBe('');
      expect(stderr).toBe(`${line}\nTilecast reference server not started: a configuration problem (--help lists every setting)\n`);
      expect(code).toBe(2);
    });
  }

  it('every problem at once, after the warnings about unknown TILECAST_* variables', () => {
    const { code, stdout, stderr } = run([], { DATABASE_URL: 'not-a-url', PORT: '-1', TILECAST_SHUTDOWN_GRACE: '5000' });
    // The warning goes through the logger (its format is the logger's).
    expect(`${stdout}${stderr}`).toContain(
      'TILECAST_SHUTDOWN_GRACE is not a setting of the reference server and is ignored (did you mean TILECAST_SHUTDOWN_GRACE_MS?)',
    );
    expect(
      stderr.endsWith(
        [
          'PORT must be an integer 0-65535, got "-1"',
          'DATABASE_URL is not a URL: expected postgres://user:password@host:5432/database',
          'Tilecast reference server not started: 2 configuration problems (--help lists every setting)',
          '',
        ].join('\n'),
      ),
      stderr,
    ).toBe(true);
    expect(code).toBe(2);
  });
});

describe('a file a setting names that cannot be used', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tilecast-setting-files-'));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const refused = (line: string) => `${line}\nTilecast reference server not started: a configuration problem (--help lists every setting)\n`;

  it('an FCM credentials file without private_key: its one line, exit code 2, the database untouched', () => {
    const path = file('fcm.json', JSON.stringify({ type: 'service_account', project_id: 'demo', client_email: 'push@demo.iam.gserviceaccount.com' }));
    const { code, stderr } = run([], { DATABASE_URL: UNREACHABLE_DATABASE, TILECAST_FCM_CREDENTIALS_FILE: path });
    expect(stderr).toBe(refused(`TILECAST_FCM_CREDENTIALS_FILE (${path}): private_key is missing`));
    expect(code).toBe(2);
  });

  it('an APNs key file that is not a PEM key: its one line, exit code 2, the database untouched', () => {
    const path = file('key.p8', 'not a key');
    const apns = {
      TILECAST_APNS_KEY_FILE: path,
      TILECAST_APNS_KEY_ID: 'ABC123DEFG',
      TILECAST_APNS_TEAM_ID: 'DEF123GHIJ',
      TILECAST_APNS_BUNDLE_ID: 'com.example.app',
    };
    const { code, stderr } = run([], { DATABASE_URL: UNREACHABLE_DATABASE, ...apns });
    expect(stderr).toBe(refused(`TILECAST_APNS_KEY_FILE (${path}) is not a PEM private key (the .p8 file from Apple)`));
    expect(code).toBe(2);
  });
});

describe('the README', () => {
  it('the example of a refused start is what the server prints', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const [, command, printed] = /```\n\$ (.+?) node examples\/reference-server\/dist\/main\.js\n([\s\S]*?)```/.exec(readme) ?? [];
    expect(command, 'an example `$ VAR=value node examples/reference-server/dist/main.js` block').toBeDefined();
    const env = Object.fromEntries(command!.split(' ').map((pair) => pair.split('=') as [string, string]));
    const { code, stderr } = run([], env);
    expect(stderr).toBe(printed);
    expect(code).toBe(2);
  });

  it('every `npm run <script>` it names is a script of the repository root, where its commands run', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const { scripts } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
    const named = [...new Set([...readme.matchAll(/npm run ([\w:-]+)/g)].map((match) => match[1]!))];
    expect(named).toEqual(expect.arrayContaining(['apns-demo', 'fcm-demo']));
    expect(named.filter((script) => !(script in scripts))).toEqual([]);
  });
});
