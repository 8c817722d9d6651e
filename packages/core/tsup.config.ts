import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', 'node/index': 'src/node/index.ts', 'schemas/index': 'src/schemas/index.ts', 'verify/index': 'src/webhooks/verify.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  tsconfig: '../../tsconfig.base.json',
});
