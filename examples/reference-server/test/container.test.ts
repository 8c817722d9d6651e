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

/** The workspaces of `@tilecast/*` packages that the workspace `dir` depends on. */
function workspaceDependencies(dir: string): string[] {
  const rootManifest = JSON.parse(read(`${root}package.json`)) as { workspaces: string[] };
  const byName = new Map(
    rootManifest.workspaces.map((workspace) => [(JSON.parse(read(`${root}${workspace}/package.json`)) as { name: string }).name, workspace] as const),
  );
  const manifest = JSON.parse(read(`${root}${dir}/package.json`)) as { dependencies?: Record<string, string>; peerDependencies?: Record<string, string> };
  return Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }).flatMap((name) => byName.get(name) ?? []);
}

/** The workspaces `from` needs, themselves included, each after those it depends on. */
function workspacesOf(from: string[]): string[] {
  const ordered: string[] = [];
  const visit = (dir: string) => {
    if (ordered.includes(dir)) return;
    for (const dependency of workspaceDependencies(dir)) visit(dependency);
    ordered.push(dir);
  };
  for (const dir of from) visit(dir);
  return ordered;
}

const manifests = stage('manifests');
const build = stage('build');
const production = stage('production-dependencies');
const workspaces = /^WORKSPACES="([^"]+)"$/.exec(only(build, 'ARG').find((args) => args.startsWith('WORKSPACES='))!)![1]!.split(' ');

describe('Dockerfile', () => {
  it('every stage on node:<exact version>-bookworm-slim, the release the README names', () => {
    const version = only(instructions(), 'ARG')
      .find((args) => args.startsWith('NODE_VERSION='))!
      .split('=')[1]!;
    // An exact release (not `22`, which moves with every Node release).
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    const bases = only(instructions(), 'FROM').filter((from) => from.startsWith('node:'));
    // The build argument, not a literal: one line changes the version of every stage.
    const base = ['node:$', '{NODE_VERSION}-bookworm-slim'].join('');
    expect(bases).toEqual([`${base} AS manifests`, `${base} AS runtime`]);
    expect(container).toContain(`\`node:${version}-bookworm-slim\``);
  });

  it("manifests first: the lockfile and every workspace's package.json, and nothing else, before any install", () => {
    const copied = only(manifests, 'COPY');
    expect(copied[0]).toBe('package.json package-lock.json ./');
    const workspaceManifests = copied.slice(1).map((args) => args.split(' ')[0]);
    const declared = (JSON.parse(read(`${root}package.json`)) as { workspaces: string[] }).workspaces;
    expect(workspaceManifests).toEqual(declared.map((dir) => `${dir}/package.json`));
    expect(only(manifests, 'RUN')).toEqual([]);
    expect(container).toContain('manifests first');
  });

  it('build stage: installs from the manifests before any source arrives, then builds the workspaces the image runs, in dependency order', () => {
    const steps = build.map((i) => `${i.keyword} ${i.args}`);
    const install = steps.indexOf('RUN npm ci --ignore-scripts --no-audit --no-fund');
    const firstSource = steps.findIndex((step) => step.startsWith('COPY '));
    expect(install).toBeGreaterThan(0);
    expect(firstSource).toBeGreaterThan(install);
    expect(container).toContain('`npm ci --ignore-scripts --no-audit --no-fund`');
    // The server's and the admin command's workspaces, and only those: no other adapter, no example.
    expect([...workspaces].sort()).toEqual(workspacesOf(['examples/reference-server', 'packages/cli']).sort());
    workspaces.forEach((dir, index) => {
      for (const dependency of workspaceDependencies(dir)) expect(workspaces.indexOf(dependency), `${dependency} is built before ${dir}`).toBeLessThan(index);
    });
    expect(only(build, 'COPY').slice(1)).toEqual(workspaces.map((dir) => `${dir} ${dir}`));
    expect(only(build, 'RUN')).toContain('for workspace in $WORKSPACES; do npm run build --workspace "$workspace" || exit 1; done');
    expect(container).toContain('`npm run build --workspace <workspace>` in dependency order');
  });

  it('production dependencies: npm ci without development dependencies nor the optional TypeScript peer, as the README says', () => {
    const [command] = only(production, 'RUN');
    expect(command).toBe(
      'npm ci --omit=dev --legacy-peer-deps --workspace examples/reference-server --workspace packages/cli --ignore-scripts --no-audit --no-fund',
    );
    expect(container).toContain(`\`${command}\``);
    expect(container).toContain('leaves out TypeScript (23 MB)');
    // The size the README states was measured (see its "Size" paragraph), not guessed.
    expect(container).toMatch(/`\/app` holds \d+ MB \([\d,]+ KiB of files/);
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

  it('runs as the unprivileged node user, on every interface, on the port it exposes, without a demo account', () => {
    expect(only(runtime, 'USER')).toEqual(['node']);
    expect(container).toContain('user `node` (not root)');
    expect(env.HOST).toBe('0.0.0.0');
    expect(env.TILECAST_DEMO).toBe('0');
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

  it('the runtime stage holds the production dependencies and the runtime tree only: no sources, no other package', () => {
    expect(only(runtime, 'COPY')).toEqual(['--from=production-dependencies /app/node_modules ./node_modules', '--from=build /runtime ./']);
  });

  it('.dockerignore keeps what was built or installed here, and the tests, out of the build context', () => {
    const ignored = read(`${root}.dockerignore`).split('\n');
    for (const pattern of ['**/node_modules', '**/dist', '.git', '**/test']) expect(ignored).toContain(pattern);
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
    expect(compose).toMatch(/image: postgres:15\.\d+\n/);
    expect(compose).toMatch(/healthcheck:\n\s+test: \["CMD-SHELL", "pg_isready/);
    expect(compose).toContain('tilecast-a: &tilecast');
    expect(compose).toContain('tilecast-b: *tilecast');
    expect(compose).toMatch(/DATABASE_URL: "postgres:\/\/tilecast:\$\{POSTGRES_PASSWORD:\?[^}]+\}@postgres:5432\/tilecast"/);
    expect(compose).toMatch(/depends_on:\n\s+postgres:\n\s+condition: service_healthy/);
  });

  it('refuses to start without a database password: no fallback value anywhere', () => {
    const uses = compose.match(/\$\{POSTGRES_PASSWORD[^}]*\}/g) ?? [];
    expect(uses).toHaveLength(2);
    // `${VAR:?message}`: compose stops with the message when VAR is unset or empty.
    for (const use of uses) expect(use).toMatch(/^\$\{POSTGRES_PASSWORD:\?.+\}$/);
    expect(compose).not.toMatch(/\$\{[A-Z_]+:?-/);
  });

  it('every image it pulls is pinned to an exact release, and the README says how to pin digests', () => {
    const pulled = [...compose.matchAll(/^\s+image: (\S+)$/gm)].map((m) => m[1]!).filter((image) => image !== 'tilecast-reference-server');
    expect(pulled).toEqual([expect.stringMatching(/^postgres:\d+\.\d+$/), expect.stringMatching(/^haproxy:\d+\.\d+\.\d+$/)]);
    for (const image of pulled) expect(container).toContain(`image: ${image}@sha256:<digest>`);
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
