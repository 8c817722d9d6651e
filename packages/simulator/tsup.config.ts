import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: { index: 'src/index.ts', page: 'src/page.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    // Both builds run at once: this one must not wipe the browser bundle next door.
    clean: ['!browser/**'],
    // `page` finds its assets from import.meta.url, also in the CommonJS build.
    shims: true,
    target: 'node20',
    tsconfig: '../../tsconfig.base.json',
  },
  {
    // The simulator page's own script, served as one browser ES module: no bundler at run time.
    entry: { simulator: 'src/browser/main.ts' },
    outDir: 'dist/browser',
    format: ['esm'],
    platform: 'browser',
    // The page is served as one file: the client's event-stream parser is bundled in.
    noExternal: ['@tilecast/client'],
    target: 'es2022',
    sourcemap: true,
    clean: true,
    tsconfig: 'tsconfig.browser.json',
  },
]);
