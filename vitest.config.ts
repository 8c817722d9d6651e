import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run against the sources of every workspace package, so `npm test` never
    // depends on a stale build.
    alias: [
      { find: /^@tilecast\/core\/verify$/, replacement: src('./packages/core/src/webhooks/verify.ts') },
      { find: /^@tilecast\/core\/node$/, replacement: src('./packages/core/src/node/index.ts') },
      { find: /^@tilecast\/core\/schemas$/, replacement: src('./packages/core/src/schemas/index.ts') },
      { find: /^@tilecast\/core$/, replacement: src('./packages/core/src/index.ts') },
      { find: /^@tilecast\/storage-memory$/, replacement: src('./packages/storage-memory/src/index.ts') },
      { find: /^@tilecast\/storage-postgres$/, replacement: src('./packages/storage-postgres/src/index.ts') },
      { find: /^@tilecast\/transport-apns\/test-double$/, replacement: src('./packages/transport-apns/src/test-double/index.ts') },
      { find: /^@tilecast\/transport-apns$/, replacement: src('./packages/transport-apns/src/index.ts') },
      { find: /^@tilecast\/conformance$/, replacement: src('./packages/conformance/src/index.ts') },
      { find: /^@tilecast\/adapter-node-http$/, replacement: src('./packages/adapter-node-http/src/index.ts') },
      { find: /^@tilecast\/simulator\/page$/, replacement: src('./packages/simulator/src/page.ts') },
      { find: /^@tilecast\/simulator$/, replacement: src('./packages/simulator/src/index.ts') },
      { find: /^@tilecast\/adapter-express$/, replacement: src('./packages/adapter-express/src/index.ts') },
      { find: /^@tilecast\/client\/sse$/, replacement: src('./packages/client/src/sse.ts') },
      { find: /^@tilecast\/client$/, replacement: src('./packages/client/src/index.ts') },
    ],
  },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'examples/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    // Finds a local PostgreSQL server when DATABASE_URL is unset.
    globalSetup: ['test/global-setup.ts'],
    // The JSON report feeds the `N passed, M failed` summary line of .ci/run.
    reporters: ['default', ['json', { outputFile: '.test-results/vitest.json' }]],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
