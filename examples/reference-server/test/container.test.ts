/**
 * The container files and the README cannot drift: the Dockerfile's commands, user, port
 * and health check are the ones the README's "Container" section documents, and the
 * compose file and the load balancer's configuration agree with the image and with the
 * server's defaults. (Building and running the image is .ci/run's, where Docker runs.)
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../src/settings.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const here = fileURLToPath(new URL('../', import.meta.url));
const read = (path: string) => readFileSync(path, 'utf8');

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
function instructions(): { keyword: string; args: string }[] {
  return read(`${root}Dockerfile`)
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'))
    .map((line) => {
      const [, keyword, args] = /^\s*(\S+)\s*(.*)$/.exec(line)!;
      return { keyword: keyword!.toUpperCase(), args: args!.trim() };
    });
}

/** The instructions of one stage (`FROM … AS name` to the next `FROM`). */
function stage(name: string): { keyword: string; args: string }[] {
  const all = instructions();
  const start = all.findIndex((i) => i.keyword === 'FROM' && i.args.endsWith(` AS ${name}`));
  expect(start, `a stage named ${name}`).toBeGreaterThanOrEqual(0);
  const next = all.findIndex((i, index) => index > start && i.keyword === 'FROM');
  return all.slice(start, next === -1 ? undefined : next);
}

const only = (list: { keyword: string; args: string }[], keyword: string) => list.filter((i) => i.keyword === keyword).map((i) => i.args);

function readmeSection(title: string): string {
  const section = read(`${here}README.md`)
    .split(/^## /m)
    .find((part) => part.startsWith(`${title}\n`));
  expect(section, `the README has a "## ${title}" section`).toBeDefined();
  // Inline code and list items may be wrapped across lines.
  return section!.replace(/\s+/g, ' ');
}

const container = readmeSection('Container');
const runtime = stage('runtime');
const env = Object.fromEntries(only(runtime, 'ENV').flatMap((args) => args.split(/\s+/).map((pair) => pair.split('=') as [string, string])));

describe('Dockerfile', () => {
  it('build stage: the README documents each of its commands, npm ci building every package', () => {
    const commands = only(stage('build'), 'RUN');
    expect(commands).toEqual([
      'npm ci --no-audit --no-fund',
      'npm ci --omit=dev --workspace examples/reference-server --workspace packages/cli --ignore-scripts --no-audit --no-fund',
    ]);
    for (const command of commands) expect(container).toContain(`\`${command}\``);
    // npm ci builds through the root `prepare` script, as the README says.
    expect(JSON.parse(read(`${root}package.json`)).scripts.prepare).toBe('npm run build');
    expect(container).toContain('`prepare` script runs `npm run build`');
  });

  it('both stages use the base image the README names', () => {
    const version = only(instructions(), 'ARG')
      .find((args) => args.startsWith('NODE_VERSION='))!
      .split('=')[1]!;
    const image = `node:${version}-bookworm-slim`;
    for (const from of only(instructions(), 'FROM')) expect(from).toMatch(/^node:\$\{NODE_VERSION\}-bookworm-slim AS /);
    expect(container).toContain(`\`${image}\``);
  });

  it('runtime stage: the CMD the README documents, run by node, built by this package', () => {
    const [cmd] = only(runtime, 'CMD');
    const command = JSON.parse(cmd!) as string[];
    expect(command).toEqual(['node', 'examples/reference-server/dist/main.js']);
    expect(container).toContain(`\`CMD ${JSON.stringify(command).replaceAll('","', '", "')}\``);
    // The file the CMD runs is the server's build entry.
    expect(read(`${here}tsup.config.ts`)).toContain("main: 'src/main.ts'");
    expect(read(`${here}README.md`)).toContain(`docker run --rm tilecast ${command.join(' ')} --help`);
  });

  it('runs as the unprivileged node user, on every interface, on the port it exposes', () => {
    expect(only(runtime, 'USER')).toEqual(['node']);
    expect(container).toContain('user `node` (not root)');
    expect(env.HOST).toBe('0.0.0.0');
    expect(only(runtime, 'EXPOSE')).toEqual([env.PORT]);
    for (const [name, value] of Object.entries(env)) expect(container).toContain(`\`${name}=${value}\``);
    expect(container).toContain(`\`EXPOSE ${env.PORT}\``);
    expect(container).toContain(`-p ${env.PORT}:${env.PORT}`);
  });

  it('HEALTHCHECK asks /healthz through node (no curl in the slim image), every 10 s as documented', () => {
    const [healthcheck] = only(runtime, 'HEALTHCHECK');
    expect(healthcheck).toMatch(/--interval=10s /);
    const command = JSON.parse(healthcheck!.slice(healthcheck!.indexOf('CMD ') + 4)) as string[];
    expect(command.slice(0, 2)).toEqual(['node', '-e']);
    expect(command[2]).toContain("'/healthz'");
    expect(command[2]).toContain('process.env.PORT');
    expect(container).toContain('`HEALTHCHECK` every 10 s: `GET /healthz` through node');
  });

  it('copies into the runtime stage only from the build stage', () => {
    for (const copy of only(runtime, 'COPY')) expect(copy).toMatch(/^--from=build /);
  });

  it('.dockerignore keeps what was built or installed here out of the build context', () => {
    const ignored = read(`${root}.dockerignore`).split('\n');
    for (const pattern of ['**/node_modules', '**/dist', '.git']) expect(ignored).toContain(pattern);
  });
});

describe('compose.yaml and the load balancer', () => {
  const compose = read(`${here}compose.yaml`);
  const haproxy = read(`${here}deploy/haproxy.cfg`);
  const seconds = (text: string, pattern: RegExp) => Number(pattern.exec(text)?.[1]);

  it('builds the image from the repository root with the Dockerfile', () => {
    expect(compose).toContain('context: ../..');
    expect(compose).toContain('dockerfile: Dockerfile');
    expect(existsSync(`${here}../../Dockerfile`)).toBe(true);
  });

  it('two instances on one PostgreSQL 15 that is healthy first', () => {
    expect(compose).toContain('image: postgres:15');
    expect(compose).toMatch(/healthcheck:\n\s+test: \["CMD-SHELL", "pg_isready/);
    expect(compose).toContain('tilecast-a: &tilecast');
    expect(compose).toContain('tilecast-b: *tilecast');
    expect(compose).toMatch(/DATABASE_URL: postgres:\/\/tilecast:\$\{POSTGRES_PASSWORD:-tilecast\}@postgres:5432\/tilecast/);
    expect(compose).toMatch(/depends_on:\n\s+postgres:\n\s+condition: service_healthy/);
  });

  it('the seed it mounts exists and is the one TILECAST_SEED names', () => {
    const [, source, target] = /- \.\/(deploy\/seed\.json):(\S+):ro/.exec(compose)!;
    expect(existsSync(`${here}${source}`)).toBe(true);
    expect(compose).toContain(`TILECAST_SEED: ${target}`);
    JSON.parse(read(`${here}${source}`));
  });

  it('the stop grace period is above the server’s shutdown grace period', () => {
    expect(seconds(compose, /stop_grace_period: (\d+)s/) * 1000).toBeGreaterThan(Number(SETTINGS.TILECAST_SHUTDOWN_GRACE_MS.default));
  });

  it('HAProxy: both instances on the image’s port, readiness from /readyz', () => {
    expect(haproxy).toContain(`server tilecast-a tilecast-a:${env.PORT}`);
    expect(haproxy).toContain(`server tilecast-b tilecast-b:${env.PORT}`);
    expect(haproxy).toContain('http-check send meth GET uri /readyz');
    expect(haproxy).toContain('http-check expect status 200');
    expect(compose).toContain('./deploy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro');
  });

  it('HAProxy: idle timeouts well above the stream heartbeat, so quiet event streams are not cut', () => {
    const ping = Number(SETTINGS.TILECAST_SSE_PING_MS.default);
    for (const timeout of ['client', 'server']) {
      expect(seconds(haproxy, new RegExp(`timeout ${timeout} (\\d+)s`)) * 1000, timeout).toBeGreaterThanOrEqual(3 * ping);
    }
  });
});
