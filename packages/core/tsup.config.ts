import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.shared';

export default defineConfig(
  libraryBuild({ index: 'src/index.ts', 'node/index': 'src/node/index.ts', 'schemas/index': 'src/schemas/index.ts', 'verify/index': 'src/webhooks/verify.ts' }),
);
