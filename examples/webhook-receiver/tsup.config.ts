import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { main: 'src/main.ts', receiver: 'src/receiver.ts' },
  format: ['esm'],
  dts: false,
  sourcemap: true,
  clean: true,
  target: 'node20',
  tsconfig: '../../tsconfig.base.json',
});
