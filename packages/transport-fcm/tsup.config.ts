import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.shared';

// `connection-worker` is the script of the transport's worker thread, found beside the
// entry that starts it (`import.meta.url`, shimmed in the CJS build).
export default defineConfig(
  libraryBuild({ index: 'src/index.ts', 'test-double/index': 'src/test-double/index.ts', 'connection-worker': 'src/connection-worker.ts' }, { shims: true }),
);
