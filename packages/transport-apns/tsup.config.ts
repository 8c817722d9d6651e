import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.shared';

export default defineConfig(libraryBuild({ index: 'src/index.ts', 'test-double/index': 'src/test-double/index.ts' }));
