import { defineConfig } from 'tsup';
import { exampleBuild } from '../../tsup.shared';

export default defineConfig(exampleBuild({ main: 'src/main.ts', receiver: 'src/receiver.ts' }));
