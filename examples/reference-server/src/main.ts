import { readConfig } from './config.js';
import { startReferenceServer } from './index.js';

/** `npm start`: serve the API until SIGINT/SIGTERM. */
async function main(): Promise<void> {
  const server = await startReferenceServer(readConfig());
  console.log(`Tilecast reference server listening on ${server.url}`);
  console.log(server.banner);
  const stop = (): void => {
    server.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(`Tilecast reference server failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
