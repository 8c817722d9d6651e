import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.shared';

// Browsers too: nothing Node-specific is used (fetch, AbortController, TextDecoder, streams).
export default defineConfig(libraryBuild({ index: 'src/index.ts', sse: 'src/sse.ts' }, { target: 'es2022', platform: 'neutral' }));
