/**
 * Every README snippet runs. The `ts`/`js` code blocks of the root README and of every
 * packages/* and examples/* README are complete programs, or fragments marked with a first
 * line `// fragment`. The complete ones are type-checked with the repository's settings
 * (in a scratch directory inside the repository, so workspace packages resolve), and the
 * curl lines of the root README run against a started server: `npm start`'s reference
 * server for the quick start, the "Embedding it" program for its own line.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { canRunOnTerminal, startOnTerminal } from '../../examples/reference-server/test/terminal.js';

const root = resolve(import.meta.dirname, '../..');
const FRAGMENT = /^\/\/ fragment\b/;
const CODE_LANGUAGES = new Set(['ts', 'typescript', 'js', 'javascript', 'mjs']);

interface Block {
  readme: string;
  line: number;
  language: string;
  code: string;
}

/** The root README and every package's and example's, found anew each run. */
function readmes(): string[] {
  const under = (dir: string) =>
    readdirSync(join(root, dir), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(root, dir, entry.name, 'README.md')))
      .map((entry) => join(dir, entry.name, 'README.md'));
  return ['README.md', ...under('packages'), ...under('examples')];
}

function codeBlocks(readme: string): Block[] {
  const lines = readFileSync(join(root, readme), 'utf8').split('\n');
  const blocks: Block[] = [];
  let open: { language: string; line: number; code: string[] } | undefined;
  lines.forEach((text, index) => {
    const fence = /^```(\S*)\s*$/.exec(text);
    if (fence === null) {
      open?.code.push(text);
    } else if (open === undefined) {
      open = { language: fence[1]!, line: index + 1, code: [] };
    } else {
      blocks.push({ readme, line: open.line, language: open.language, code: open.code.join('\n') });
      open = undefined;
    }
  });
  return blocks;
}

const all = readmes().flatMap(codeBlocks);
const code = all.filter((block) => CODE_LANGUAGES.has(block.language));
const complete = code.filter((block) => !FRAGMENT.test(block.code));

const scratch = join(root, '.readme-snippets', String(process.pid));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  // The parent too, unless another run is using it.
  try {
    rmdirSync(join(root, '.readme-snippets'));
  } catch {}
});

describe('README code blocks', () => {
  it('finds the READMEs and their complete programs', () => {
    expect(readmes()).toContain('packages/core/README.md');
    expect(readmes()).toContain('examples/reference-server/README.md');
    expect(complete.length).toBeGreaterThanOrEqual(10);
  });

  it('every complete ts/js block type-checks with the repository settings', () => {
    mkdirSync(scratch, { recursive: true });
    const names = new Map<string, Block>();
    for (const block of complete) {
      const js = block.language === 'js' || block.language === 'javascript' || block.language === 'mjs';
      const name = `${block.readme.replace(/[/.]/g, '_')}_${block.line}.${js ? 'mjs' : 'ts'}`;
      names.set(name, block);
      // A module of its own (top-level await, no names shared between snippets).
      writeFileSync(join(scratch, name), `${block.code}\nexport {};\n`);
    }
    writeFileSync(
      join(scratch, 'tsconfig.json'),
      JSON.stringify({
        extends: relative(scratch, join(root, 'tsconfig.json')),
        compilerOptions: { noEmit: true, allowJs: true, checkJs: true },
        include: ['*.ts', '*.mjs'],
        exclude: [],
      }),
    );
    const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', scratch, '--pretty', 'false'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 180_000,
    });
    // Name each error by its README and line, not by the scratch file.
    const errors = `${tsc.stdout}${tsc.stderr}`
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const match = /([^/\\]+?)\((\d+),\d+\): (.*)$/.exec(line);
        const block = match === null ? undefined : names.get(match[1]!);
        return block === undefined ? line : `${block.readme}:${block.line + Number(match![2])}: ${match![3]}`;
      });
    expect(errors).toEqual([]);
    expect(tsc.status).toBe(0);
  }, 180_000);
});

/** `curl …` lines of a shell block, continuation lines joined. */
function curlLines(text: string): string[] {
  return text
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('curl '));
}

/** Runs a curl line (adding `-sS -o - -w status`) and answers the status and body. */
function runCurl(line: string): { status: number; body: string } {
  const result = spawnSync('sh', ['-c', `${line} -sS -w '\\n%{http_code}'`], { encoding: 'utf8', timeout: 30_000 });
  expect(result.status, result.stderr).toBe(0);
  const output = result.stdout;
  const cut = output.lastIndexOf('\n');
  return { status: Number(output.slice(cut + 1)), body: output.slice(0, cut) };
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

/** Starts `node args` and collects its output until `done` matches (bounded). */
async function start(args: string[], env: Record<string, string>, done: RegExp): Promise<{ child: ChildProcess; output: string }> {
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 15_000;
  while (!done.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${args.join(' ')} did not print ${done}:\n${output}`);
    await Promise.race([once(child.stdout!, 'data'), once(child, 'exit'), new Promise((settle) => setTimeout(settle, 500))]);
  }
  return { child, output };
}

const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGTERM');
});

describe('the root README curl lines', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = (title: string) => readme.split(/^## /m).find((part) => part.startsWith(title))!;

  it.skipIf(!canRunOnTerminal)("quick start: the curl line works against npm start's server", async () => {
    const lines = codeBlocks('README.md')
      .filter((block) => block.language === 'sh' && section('Quick start').includes(block.code))
      .flatMap((block) => curlLines(block.code));
    expect(lines).toHaveLength(1);
    const port = await freePort();
    // `npm start` is this entry, run on a terminal as by a person (tokens are printed only
    // there); in memory even when the test run has DATABASE_URL.
    const { child, output } = await startOnTerminal(
      [join(root, 'examples/reference-server/dist/main.js')],
      { PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: '', TILECAST_DEMO: '' },
      /OpenAPI: /,
    );
    running.push(child);
    const token = /API token (\S+)/.exec(output)?.[1];
    expect(token, output).toBeDefined();
    for (const line of lines) {
      const { status, body } = runCurl(line.replaceAll('http://127.0.0.1:8080', `http://127.0.0.1:${port}`).replace(/tok_…/g, token!));
      expect(status, body).toBe(200);
      expect(JSON.parse(body)).toMatchObject({ state: 'ONGOING', content: { template: 'progress' } });
    }
  });

  it('"Embedding it": the program runs and the curl line it prints works', async () => {
    const [block] = codeBlocks('README.md').filter((candidate) => CODE_LANGUAGES.has(candidate.language) && section('Embedding it').includes(candidate.code));
    expect(block).toBeDefined();
    const port = await freePort();
    // Run as written (transpiled, on the built packages, as after `npm install`), on a free port.
    const program = ts.transpileModule(block!.code.replaceAll('8080', String(port)), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    }).outputText;
    mkdirSync(scratch, { recursive: true });
    const file = join(scratch, 'embedding.mjs');
    writeFileSync(file, program);
    const { output } = await start([file], {}, /curl .*\n/);
    const lines = curlLines(output);
    expect(lines).toHaveLength(1);
    const { status, body } = runCurl(lines[0]!);
    expect(status, body).toBe(200);
    expect(JSON.parse(body)).toMatchObject({ content: { template: 'gauge', value: 21 } });
  });
});

/** The first complete program of `readme`, run as written (transpiled, on the built packages) with 8080 replaced by `port`. */
async function runProgram(readme: string, port: number): Promise<string> {
  const [block] = complete.filter((candidate) => candidate.readme === readme && candidate.language === 'ts');
  expect(block, `${readme} has a complete ts program`).toBeDefined();
  const program = ts.transpileModule(block!.code.replaceAll('8080', String(port)), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
  }).outputText;
  mkdirSync(scratch, { recursive: true });
  const file = join(scratch, `${readme.replace(/[/.]/g, '_')}.mjs`);
  writeFileSync(file, program);
  // The whole curl line: continuation lines (ending in a backslash) and the last one.
  const { output } = await start([file], {}, /curl (?:[^\n]*\\\n)*[^\n]*[^\\\n]\n/);
  return output;
}

describe('the adapter READMEs: each program runs and the curl line it prints publishes', () => {
  for (const readme of ['packages/adapter-express/README.md', 'packages/adapter-fastify/README.md', 'packages/adapter-fetch/README.md']) {
    it(readme, async () => {
      const output = await runProgram(readme, await freePort());
      const lines = curlLines(output);
      expect(lines, output).toHaveLength(1);
      const { status, body } = runCurl(lines[0]!);
      expect(status, body).toBe(200);
      expect(JSON.parse(body)).toMatchObject({ content: { template: 'gauge', value: 21 } });
    });
  }
});
