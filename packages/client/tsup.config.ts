import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  // Browsers too: nothing Node-specific is used (fetch, AbortController, TextDecoder, streams).
  target: 'es2022',
  platform: 'neutral',
  tsconfig: '../../tsconfig.base.json',
});
