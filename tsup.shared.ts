import type { Options } from 'tsup';

/** A published package: ESM first, a CJS build beside it, type declarations, Node 20+. */
export function libraryBuild(entry: Record<string, string>, overrides: Options = {}): Options {
  return { entry, format: ['esm', 'cjs'], dts: true, sourcemap: true, clean: true, target: 'node20', tsconfig: '../../tsconfig.base.json', ...overrides };
}

/** An example app: ESM only, no declarations. */
export function exampleBuild(entry: Record<string, string>): Options {
  return { entry, format: ['esm'], dts: false, sourcemap: true, clean: true, target: 'node20', tsconfig: '../../tsconfig.base.json' };
}
