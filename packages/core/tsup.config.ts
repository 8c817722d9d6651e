import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.shared';

export default defineConfig(
  libraryBuild({
    index: 'src/index.ts',
    'storage/index': 'src/storage/index.ts',
    'adapter/index': 'src/adapter.ts',
    'schemas/index': 'src/schemas/public.ts',
    'verify/index': 'src/webhooks/verify.ts',
    'push/index': 'src/transport/push/index.ts',
  }),
);
