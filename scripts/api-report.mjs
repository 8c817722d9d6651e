#!/usr/bin/env node
// The API reports: one `packages/<name>/api/<entry>.api.md` per typed entry of every
// published package, written by API Extractor from the built declarations (`dist/*.d.ts`,
// so run it after `npm run build`). A change of a package's public surface is a diff of
// its report, reviewed like code (docs/decisions/0101-public-api.md).
//
//   node scripts/api-report.mjs check    (`npm run api:check`: fails when a report differs)
//   node scripts/api-report.mjs update   (`npm run api:update`: rewrites the reports)
//
// API Extractor takes one entry per run; the entries share one TypeScript program
// (`CompilerState`), so the whole repository takes seconds, not a program per entry.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CompilerState, Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const mode = process.argv[2];
if (mode !== 'check' && mode !== 'update') {
  console.error('usage: api-report.mjs check|update');
  process.exit(2);
}

/** Every typed entry of every published package: `{ dir, name, report, types }`. */
function publishedEntries() {
  const entries = [];
  for (const dir of readdirSync(path.join(root, 'packages')).sort()) {
    const packageDir = path.join(root, 'packages', dir);
    const manifestPath = path.join(packageDir, 'package.json');
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    if (manifest.private === true || manifest.exports === undefined) continue;
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      // The ESM declarations; the CJS ones are built from the same sources (attw checks both).
      const types = typeof target === 'object' ? target?.import?.types : undefined;
      if (types === undefined) continue; // a file export (JSON Schemas) has no declarations
      const report = subpath === '.' ? 'index' : subpath.slice(2).replaceAll('/', '-');
      entries.push({
        dir: packageDir,
        name: subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`,
        report,
        types: path.join(packageDir, types),
      });
    }
  }
  return entries;
}

function configFor(entry, tempFolder) {
  return ExtractorConfig.prepare({
    configObjectFullPath: undefined,
    packageJsonFullPath: path.join(entry.dir, 'package.json'),
    configObject: {
      projectFolder: entry.dir,
      mainEntryPointFilePath: entry.types,
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: 'ES2022',
            module: 'ESNext',
            moduleResolution: 'Bundler',
            lib: ['ES2023', 'DOM'],
            types: ['node'],
            strict: true,
            skipLibCheck: true,
          },
          files: [entry.types],
        },
      },
      apiReport: {
        enabled: true,
        reportFileName: entry.report,
        reportFolder: path.join(tempFolder, path.basename(entry.dir)),
        reportTempFolder: path.join(tempFolder, path.basename(entry.dir), 'temp'),
        includeForgottenExports: false,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: 'warning' } },
        // A type a public signature uses but the entry does not export shows in the report
        // (`ae-forgotten-export`), so a reviewer sees it; release tags and TSDoc are not used here.
        extractorMessageReporting: {
          default: { logLevel: 'warning', addToApiReportFile: true },
          'ae-missing-release-tag': { logLevel: 'none' },
          'ae-undocumented': { logLevel: 'none' },
        },
        tsdocMessageReporting: { default: { logLevel: 'none' } },
      },
    },
  });
}

const entries = publishedEntries();
const missing = entries.filter((entry) => !existsSync(entry.types));
if (missing.length > 0) {
  for (const entry of missing) console.error(`${path.relative(root, entry.types)} is missing: run \`npm run build\` first`);
  process.exit(1);
}

const tempFolder = mkdtempSync(path.join(tmpdir(), 'tilecast-api-'));
const configs = entries.map((entry) => configFor(entry, tempFolder));
const compilerState = CompilerState.create(configs[0], { additionalEntryPoints: entries.map((entry) => entry.types) });

/**
 * API Extractor writes each report into the scratch folder; this script compares and copies
 * it, after taking out the positions of findings in `dist/` (`dist/index.d.ts:67:9 - `): they
 * move with every comment above them, and the hashed names of shared chunks with every build.
 */
const normalised = (text) => text.replace(/^\/\/ dist\/\S+:\d+:\d+ - /gm, '// ');

const changed = [];
let errors = 0;
try {
  for (const [index, entry] of entries.entries()) {
    const config = configs[index];
    mkdirSync(config.reportFolder, { recursive: true });
    const result = Extractor.invoke(config, {
      compilerState,
      localBuild: true,
      messageCallback: (message) => {
        // The bundled TypeScript may be older than the repository's: that note is not a finding.
        if (message.logLevel === 'info' || message.logLevel === 'verbose') message.handled = true;
        if (message.messageId === 'console-api-report-created' || message.messageId === 'console-api-report-copied') message.handled = true;
      },
    });
    errors += result.errorCount;
    const built = normalised(readFileSync(path.join(config.reportFolder, config.reportConfigs[0].fileName), 'utf8'));
    const committed = path.join(entry.dir, 'api', `${entry.report}.api.md`);
    const before = existsSync(committed) ? readFileSync(committed, 'utf8') : undefined;
    if (before === built) continue;
    changed.push({ entry, committed, built });
  }

  if (mode === 'update') {
    for (const { entry, committed, built } of changed) {
      mkdirSync(path.dirname(committed), { recursive: true });
      writeFileSync(committed, built);
      console.log(`updated ${path.relative(root, committed)} (${entry.name})`);
    }
    console.log(`api: ${entries.length} reports, ${changed.length} updated`);
  } else {
    for (const { entry, committed, built } of changed) {
      const scratch = path.join(tempFolder, `${path.basename(entry.dir)}-${entry.report}.api.md`);
      writeFileSync(scratch, built);
      console.error(`\nThe public API of ${entry.name} differs from ${path.relative(root, committed)}:`);
      const old = existsSync(committed) ? path.relative(root, committed) : '/dev/null';
      const shown = spawnSync('git', ['diff', '--no-index', '--no-color', old, scratch], { cwd: root, encoding: 'utf8' });
      process.stderr.write(shown.stdout);
    }
    if (changed.length > 0) {
      console.error(`\napi: ${changed.length} of ${entries.length} reports differ from the build.`);
      console.error('If the change is intended, run `npm run build && npm run api:update` and commit packages/*/api/ with it.');
    } else {
      console.log(`api: ${entries.length} reports match the build`);
    }
  }
} finally {
  rmSync(tempFolder, { recursive: true, force: true });
}
if (errors > 0) console.error(`api: API Extractor reported ${errors} error(s)`);
process.exit(errors > 0 || (mode === 'check' && changed.length > 0) ? 1 : 0);
