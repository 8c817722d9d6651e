import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.shared';

// A command first: one ESM entry (bin/tilecast.js imports it), no declarations; it awaits at
// the top level, so it has no CJS build. Beside it, the one library entry, `./text` (help-text
// layout, used by the reference server), built as every published entry is, into its own
// folder: each build cleans only its own files, since tsup runs the two at once.
export default defineConfig([
  libraryBuild({ main: 'src/main.ts' }, { format: ['esm'], dts: false, clean: ['!text/**'] }),
  libraryBuild({ index: 'src/text.ts' }, { outDir: 'dist/text' }),
]);
