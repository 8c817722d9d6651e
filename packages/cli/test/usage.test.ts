/**
 * `tilecast` without a database: help for every command, and the usage and configuration
 * errors (one line on stderr, nothing on stdout, exit code 2), which never connect.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/commands/index.js';
import { requireBuild, tilecast } from './support.js';

/** What `npx tilecast` runs at the repository root: the bin npm linked for the workspace. */
const LINKED_BIN = fileURLToPath(new URL('../../../node_modules/.bin/tilecast', import.meta.url));

/** Nothing listens on port 1 of the loopback: a connection is refused at once. */
const UNREACHABLE = 'postgres://postgres@127.0.0.1:1/test';

beforeAll(requireBuild);

/** One line on stderr, nothing on stdout. */
function expectOneLineError(run: { stdout: string; stderr: string }, pattern: RegExp): void {
  expect(run.stdout).toBe('');
  expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(run.stderr).toMatch(pattern);
}

describe('tilecast --help', () => {
  it('lists every command, the environment and the exit codes, on stdout with exit 0 (also as `tilecast help`)', async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const run = await tilecast(args);
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
      for (const command of COMMANDS) expect(run.stdout).toContain(`  ${command.words.join(' ')}`);
      expect(run.stdout).toContain('DATABASE_URL');
      expect(run.stdout).toMatch(/Exit codes:\n {2}0 {2}done\n {2}1 .*\n {2}2 .*\n.*\n {2}3 /);
    }
  });

  it('every command has its own help: usage line, arguments, options and an example; no database needed', async () => {
    const runs = await Promise.all(COMMANDS.map((command) => tilecast([...command.words, '--help'])));
    COMMANDS.forEach((command, i) => {
      const { code, stdout, stderr } = runs[i]!;
      const name = command.words.join(' ');
      expect({ name, code, stderr }).toEqual({ name, code: 0, stderr: '' });
      expect(stdout).toMatch(new RegExp(`^Usage: tilecast ${name}`));
      for (const argument of command.arguments) expect(stdout).toContain(`<${argument.name}>`);
      for (const option of Object.keys(command.options)) expect(stdout).toContain(`--${option}`);
      expect(stdout).toContain('--json');
      expect(stdout).toContain(`Example:\n  tilecast ${name}`);
    });
  });

  it('runs as the workspace bin `npx tilecast` uses (linked by npm install, executable, with its shebang)', async () => {
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(LINKED_BIN, ['--help'], { env: { PATH: process.env.PATH ?? '' }, timeout: 30_000 }, (error, out) => (error ? reject(error) : resolve(out))),
    );
    expect(stdout).toMatch(/^Usage: tilecast <command>/);
  });

  it('a group lists its actions (`tilecast accounts --help`, `tilecast help widgets`)', async () => {
    const accounts = await tilecast(['accounts', '--help']);
    expect(accounts.code).toBe(0);
    expect(accounts.stdout).toContain('Usage: tilecast accounts <create|list|delete>');
    const widgets = await tilecast(['help', 'widgets']);
    expect(widgets.code).toBe(0);
    expect(widgets.stdout).toContain('widgets share <account> <slug> <device>');
  });
});

describe('usage errors: exit 2, one line on stderr', () => {
  it.each([
    [[], /^tilecast: no command given; `tilecast --help` lists them$/m],
    [['frob'], /unknown command "frob"/],
    [['accounts'], /"accounts" needs an action: create, list, delete/],
    [['accounts', 'frob'], /unknown action "frob" of "accounts"/],
    [['accounts', 'create'], /^tilecast accounts create: missing <account> \(see `tilecast accounts create --help`\)$/m],
    [['accounts', 'create', 'a', 'b'], /unexpected argument "b"/],
    [['accounts', 'create', 'a', '--bogus'], /unknown option --bogus/],
    [['accounts', 'create', 'a', '--quota'], /--quota needs a value/],
    [['accounts', 'create', 'a', '--json=yes'], /--json takes no value/],
    [['accounts', 'create', 'a', '--subscription', 'ended'], /--subscription must be one of active, none, got "ended"/],
    [['subscription', 'set', 'a', 'ended'], /<status> must be one of active, none, got "ended"/],
    [['quota', 'set', 'a', 'many'], /the quota must be a whole number, got "many"/],
    [['quota', 'set', 'a', '-1'], /-1: negative numbers are not accepted/],
    [['activities', 'create', 'a', 'b'], /--template is required/],
    [['widgets', 'create', 'a', 'b', '--template', 'nope'], /--template must be one of status, progress, .*switchboard, got "nope"/],
    [['widgets', 'create', 'a', 'b', '--template', 'gauge', '--privacy', 'secret'], /--privacy must be one of visible, hidden_when_locked/],
    [['deliveries', 'acme'], /^tilecast deliveries: unexpected argument "acme" \(see `tilecast deliveries --help`\)$/m],
    [['deliveries', '--limit', 'many'], /^tilecast deliveries: --limit must be a whole number, got "many"$/m],
    [['deliveries', '--failed=yes'], /--failed takes no value/],
    [['deliveries', '--account'], /--account needs a value/],
  ])('tilecast %j', async (args, message) => {
    const run = await tilecast(args, { DATABASE_URL: UNREACHABLE });
    expect(run.code).toBe(2);
    expectOneLineError(run, message);
  });
});

describe('configuration errors: exit 2 before any connection', () => {
  it('DATABASE_URL unset or empty', async () => {
    for (const env of [{}, { DATABASE_URL: '' }] as Record<string, string>[]) {
      const run = await tilecast(['accounts', 'list'], env);
      expect(run.code).toBe(2);
      expectOneLineError(run, /^tilecast accounts list: DATABASE_URL is not set: set it to the PostgreSQL URL/);
    }
  });

  it('DATABASE_URL=not-a-url says it is not a URL (not a DNS error), and never repeats the value', async () => {
    const run = await tilecast(['accounts', 'list'], { DATABASE_URL: 'not-a-url' });
    expect(run.code).toBe(2);
    expectOneLineError(run, /^tilecast accounts list: DATABASE_URL is not a URL: expected postgres:\/\/user:password@host:port\/database$/m);
    expect(run.stderr).not.toContain('ENOTFOUND');
    const secret = await tilecast(['migrate'], { DATABASE_URL: 'postgres://user:s3cret@host:port/db' });
    expect(secret.code).toBe(2);
    expectOneLineError(secret, /DATABASE_URL is not a URL/);
    expect(secret.stderr).not.toContain('s3cret');
  });

  it('a URL of another scheme', async () => {
    const run = await tilecast(['migrate'], { DATABASE_URL: 'mysql://root@127.0.0.1/db' });
    expect(run.code).toBe(2);
    expectOneLineError(run, /DATABASE_URL is not a PostgreSQL URL: its scheme is "mysql:", expected postgres:\/\/ or postgresql:\/\//);
  });

  it('an invalid schema name (--schema or TILECAST_DATABASE_SCHEMA) and an invalid deadline', async () => {
    const option = await tilecast(['accounts', 'list', '--schema', 'no-dashes'], { DATABASE_URL: UNREACHABLE });
    expect(option.code).toBe(2);
    expectOneLineError(option, /invalid schema "no-dashes": invalid schema name/);
    const variable = await tilecast(['accounts', 'list'], { DATABASE_URL: UNREACHABLE, TILECAST_DATABASE_SCHEMA: 'x;y' });
    expect(variable.code).toBe(2);
    expectOneLineError(variable, /invalid schema "x;y"/);
    const deadline = await tilecast(['accounts', 'list'], { DATABASE_URL: UNREACHABLE, TILECAST_PG_CONNECT_TIMEOUT_MS: 'soon' });
    expect(deadline.code).toBe(2);
    expectOneLineError(deadline, /TILECAST_PG_CONNECT_TIMEOUT_MS must be a positive integer \(milliseconds\), got "soon"/);
  });
});

describe('an unreachable database: exit 3', () => {
  it('names the server (never the password) and says it is unavailable', async () => {
    const run = await tilecast(['accounts', 'list', '--json'], { DATABASE_URL: 'postgres://postgres:s3cret@127.0.0.1:1/test' });
    expect(run.code).toBe(3);
    expectOneLineError(run, /^tilecast accounts list: PostgreSQL at 127\.0\.0\.1:1\/test is unavailable: connect ECONNREFUSED/);
    expect(run.stderr).not.toContain('s3cret');
  });
});
