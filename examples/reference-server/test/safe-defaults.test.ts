/**
 * The built server's safe defaults (docs/contract/deployment.md#demo-account-needs-asking, docs/contract/deployment.md#no-secrets-off-terminal,
 * docs/contract/deployment.md#stdout-json-logs; issue 32 items 1 and 2), with stdout and stderr pipes as in a container or under a process manager: with
 * a database it creates no account unless asked (`TILECAST_DEMO=1`) and hands no token to
 * the simulator page; whatever it creates, it prints no token when its output is not a
 * terminal; stdout holds only JSON log lines; no credential of `DATABASE_URL` (user part or
 * `?password=`) is printed. On a terminal, the quick start still prints its tokens.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createPostgresStorage } from '@tilecast/storage-postgres';
import { redact } from '../src/storage.js';
import { canRunOnTerminal, startOnTerminal } from './terminal.js';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const DATABASE_URL = process.env.DATABASE_URL || undefined;

/** A token as the core issues them (`tok_…`, `dev_…`). */
const TOKEN = /\b(?:tok|dev)_[A-Za-z0-9_-]{8,}/;

interface Started {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
}

const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGTERM');
});

/** Starts `node dist/main.js` with pipes for stdout and stderr, and waits (bounded) until it listens. */
async function startPiped(env: Record<string, string>): Promise<Started> {
  // TILECAST_DEMO unset unless the test sets it, whatever the test run's environment holds.
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', TILECAST_DEMO: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + 15_000;
  // Wherever the banner goes: its last line says it is complete.
  while (!/Device simulator: /.test(`${stdout}${stderr}`)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`server did not start:\n${stdout}${stderr}`);
    await Promise.race([once(child.stdout!, 'data'), once(child.stderr!, 'data'), once(child, 'exit'), new Promise((settle) => setTimeout(settle, 500))]);
  }
  return { child, url: /listening on (\S+)/.exec(`${stdout}${stderr}`)![1]!, stdout: () => stdout, stderr: () => stderr };
}

/** Every stdout line is one JSON log line. */
function expectOnlyJson(stdout: string): Record<string, unknown>[] {
  const lines = stdout.split('\n').filter((line) => line !== '');
  expect(lines.length).toBeGreaterThan(0);
  return lines.map((line) => {
    expect(() => JSON.parse(line), line).not.toThrow();
    return JSON.parse(line) as Record<string, unknown>;
  });
}

const patchActivity = (url: string, token: string) =>
  fetch(`${url}/activity/build`, {
    method: 'PATCH',
    headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ state: 'ONGOING', content: { template: 'progress', progress: { value: 0.4 } } }),
  });

describe.skipIf(!DATABASE_URL)('reference server with DATABASE_URL, output not a terminal', () => {
  const schemas: string[] = [];
  const admin = DATABASE_URL === undefined ? undefined : new pg.Pool({ connectionString: DATABASE_URL });
  afterAll(async () => {
    for (const schema of schemas) await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin?.end();
  });
  const newSchema = () => {
    const schema = `safe_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    schemas.push(schema);
    return schema;
  };
  const accounts = async (schema: string) => {
    const storage = createPostgresStorage({ pool: admin!, schema, listen: false });
    try {
      return (await storage.listAccounts({ after: null, limit: 10 })).map((account) => account.id);
    } finally {
      await storage.close();
    }
  };
  /** The test database's URL with a password in the user part and another as `?password=` (trust auth ignores both). */
  const withCredentials = () => {
    const url = new URL(DATABASE_URL!);
    url.password = 'secret-in-user-part';
    url.searchParams.set('password', 'secret-in-query');
    return url.toString();
  };

  it('without TILECAST_DEMO: no account, no simulator token, only JSON on stdout, no credential anywhere', async () => {
    const schema = newSchema();
    const server = await startPiped({ DATABASE_URL: withCredentials(), TILECAST_DATABASE_SCHEMA: schema });
    expect((await patchActivity(server.url, 'tok_anything_at_all')).status).toBe(401);
    expect((await fetch(`${server.url}/simulator-config.json`)).status).toBe(404);
    expect(await accounts(schema)).toEqual([]);
    const events = expectOnlyJson(server.stdout());
    expect(events).toContainEqual(expect.objectContaining({ msg: 'listening', url: server.url }));
    const output = `${server.stdout()}${server.stderr()}`;
    expect(output).not.toContain('secret-in');
    expect(output).not.toMatch(TOKEN);
    // The banner says where data lives, with every credential masked.
    expect(server.stderr()).toMatch(/Storage: PostgreSQL storage \(postgres:\/\/[^:\s]+:\*\*\*@[^\s]+\?password=\*\*\*, schema safe_/);
  });

  it('TILECAST_DEMO=1: the demo account is created and its phone handed to the simulator page, its tokens never printed', async () => {
    const schema = newSchema();
    const server = await startPiped({ DATABASE_URL: withCredentials(), TILECAST_DATABASE_SCHEMA: schema, TILECAST_DEMO: '1' });
    expect(await accounts(schema)).toEqual(['demo']);
    const { deviceToken } = (await (await fetch(`${server.url}/simulator-config.json`)).json()) as { deviceToken: string };
    expect(deviceToken).toMatch(TOKEN);
    expectOnlyJson(server.stdout());
    const output = `${server.stdout()}${server.stderr()}`;
    expect(output).not.toContain(deviceToken);
    expect(output).not.toMatch(TOKEN);
    expect(output).not.toContain('secret-in');
    // How to get tokens instead: the admin command.
    expect(server.stderr()).toContain('npx tilecast tokens rotate demo');
  });
});

describe('reference server in memory (npm start), output not a terminal', () => {
  it('the quick start keeps its demo account (simulator page included), but prints no token and only JSON on stdout', async () => {
    const server = await startPiped({ DATABASE_URL: '' });
    const { deviceToken } = (await (await fetch(`${server.url}/simulator-config.json`)).json()) as { deviceToken: string };
    expect(deviceToken).toMatch(TOKEN);
    expectOnlyJson(server.stdout());
    expect(`${server.stdout()}${server.stderr()}`).not.toMatch(TOKEN);
    expect(server.stderr()).toContain('printed only on a terminal');
  });
});

describe.skipIf(!canRunOnTerminal)('reference server in memory (npm start), on a terminal', () => {
  it('prints the demo tokens and a curl line that starts the activity', async () => {
    const { child, output } = await startOnTerminal([main], { PORT: '0', HOST: '127.0.0.1', DATABASE_URL: '', TILECAST_DEMO: '' }, /OpenAPI: /);
    running.push(child);
    const curl = /curl -X PATCH (\S+) -H 'Authorization: Token (\S+)' -H 'Content-Type: application\/json' -d '(.+)'/.exec(output);
    expect(curl, output).not.toBeNull();
    const [, url, token, body] = curl!;
    expect(output).toMatch(/Demo device "demo-phone": device token dev_/);
    const reply = await fetch(url!, { method: 'PATCH', headers: { authorization: `Token ${token}`, 'content-type': 'application/json' }, body });
    expect(reply.status).toBe(200);
    expect(await reply.json()).toMatchObject({ state: 'ONGOING', content: { template: 'progress' } });
  });
});

describe('the banner masks every credential of DATABASE_URL', () => {
  it('the password of the user part and every query parameter that carries a secret', () => {
    expect(redact('postgres://u:secret@db.internal:5432/tilecast?password=secret2&sslpassword=secret3&application_name=tilecast')).toBe(
      'postgres://u:***@db.internal:5432/tilecast?password=***&sslpassword=***&application_name=tilecast',
    );
    expect(redact('postgresql://db/tilecast?PassWord=a&password=b')).toBe('postgresql://db/tilecast?PassWord=***&password=***');
    expect(redact('postgres://u@db/tilecast')).toBe('postgres://u@db/tilecast');
  });
});
