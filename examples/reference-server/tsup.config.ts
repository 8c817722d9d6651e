import { defineConfig } from 'tsup';
import { exampleBuild } from '../../tsup.shared';

export default defineConfig(
  exampleBuild({ main: 'src/main.ts', index: 'src/index.ts', 'apns-demo': 'src/apns-demo-main.ts', 'fcm-demo': 'src/fcm-demo-main.ts' }),
);
