import { defineConfig } from 'vitest/config';

// Tests run against the sources of every workspace package, so `npm test` never depends on
// a stale build: each package.json `exports` entry names its source under this condition
// (the one package map; tsconfig.json sets the same `customConditions`).
const conditions = ['@tilecast/source', 'module', 'node', 'development|production']; // then Vite's defaults for Node

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'examples/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    // Finds a local PostgreSQL server when DATABASE_URL is unset.
    globalSetup: ['test/global-setup.ts'],
    // The JSON report feeds the `N passed, M failed` summary line of .ci/run, which runs the
    // suite on several Node.js lines at once and names each run's report.
    reporters: ['default', ['json', { outputFile: process.env.TILECAST_TEST_REPORT || '.test-results/vitest.json' }]],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
