import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.shared';

// A command, not a library: one ESM entry (bin/tilecast.js imports it), no declarations.
export default defineConfig(libraryBuild({ main: 'src/main.ts' }, { format: ['esm'], dts: false }));
