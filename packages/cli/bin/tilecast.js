#!/usr/bin/env node
// The `tilecast` bin. The command itself is built into dist/; this launcher is committed, so it
// exists when `npm install` links the bin of the workspace (before `prepare` builds dist/: npm
// links no bin whose file is missing).
try {
  await import('../dist/main.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/main.js')) throw error;
  console.error('tilecast: not built yet: run `npm run build -w packages/cli` (or `npm run build`) first');
  process.exitCode = 2;
}
