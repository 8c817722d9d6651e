/**
 * What `@tilecast/client` is made of. It runs in browsers, so what it loads must be free
 * of Node and of the server: its own sources, its declared dependencies, and, through
 * `@tilecast/core/verify`, the core's WebCrypto-only verifier. Another package's sources
 * are reached through that package's published entry, never by a relative path (which
 * would compile them into the client's build: issue 33).
 */
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const repository = path.resolve(import.meta.dirname, '../../../..');
const clientDir = path.join(repository, 'packages/client');
const manifest = JSON.parse(readFileSync(path.join(clientDir, 'package.json'), 'utf8')) as {
  dependencies?: Record<string, string>;
  exports: Record<string, { '@tilecast/source': string }>;
};
const options: ts.CompilerOptions = {
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  customConditions: ['@tilecast/source'],
};

interface Edge {
  from: string;
  specifier: string;
  /** The repository file it resolves to, when it is one of ours (not in node_modules). */
  file: string | undefined;
}

/** Every import of every file reachable from the client's entries, following workspace packages through their sources. */
function moduleGraph(): { files: Set<string>; edges: Edge[] } {
  const pending = Object.values(manifest.exports).map((target) => path.join(clientDir, target['@tilecast/source']));
  const files = new Set<string>();
  const edges: Edge[] = [];
  // Bounded: each file is read once, and the repository has finitely many.
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (files.has(file)) continue;
    files.add(file);
    for (const { fileName: specifier } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      const resolved = ts.resolveModuleName(specifier, file, options, ts.sys).resolvedModule;
      // A workspace package resolves through its node_modules link to its sources: ours too.
      const real = resolved === undefined ? undefined : realpathSync(resolved.resolvedFileName);
      const ours = real !== undefined && !real.split(path.sep).includes('node_modules') ? real : undefined;
      edges.push({ from: file, specifier, file: ours });
      if (ours !== undefined) pending.push(ours);
    }
  }
  return { files, edges };
}

const relativeToRepository = (file: string) => path.relative(repository, file).split(path.sep).join('/');

describe('the module graph of @tilecast/client', () => {
  const { files, edges } = moduleGraph();

  it('reaches other packages only through their entries, never by a relative path', () => {
    const leaving = edges.filter(
      (edge) => edge.specifier.startsWith('.') && edge.from.startsWith(clientDir) && edge.file !== undefined && !edge.file.startsWith(clientDir),
    );
    expect(leaving.map((edge) => `${relativeToRepository(edge.from)} imports ${edge.specifier}`)).toEqual([]);
  });

  it('imports only packages it declares as dependencies', () => {
    const fromClient = edges.filter((edge) => edge.from.startsWith(clientDir) && !edge.specifier.startsWith('.'));
    const packages = new Set(
      fromClient.map((edge) =>
        edge.specifier
          .split('/')
          .slice(0, edge.specifier.startsWith('@') ? 2 : 1)
          .join('/'),
      ),
    );
    expect([...packages].filter((name) => manifest.dependencies?.[name] === undefined)).toEqual([]);
  });

  it("loads no Node built-in and none of the core's server code", () => {
    expect(edges.filter((edge) => edge.specifier.startsWith('node:')).map((edge) => `${relativeToRepository(edge.from)} imports ${edge.specifier}`)).toEqual(
      [],
    );
    const outside = [...files].map(relativeToRepository).filter((file) => !file.startsWith('packages/client/'));
    expect(outside.sort()).toEqual(['packages/core/src/webhooks/header-names.ts', 'packages/core/src/webhooks/verify.ts']);
  });
});
