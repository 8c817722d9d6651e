import { readFile } from 'node:fs/promises';
import { listen, mount } from '@tilecast/adapter-node-http';
import { consoleLogger, createTilecast, type Logger, type Tilecast } from '@tilecast/core';
import { createMemoryStorage } from '@tilecast/storage-memory';
import type { ServerConfig } from './config.js';
import { createDemoAccount, demoInstructions } from './demo.js';

export interface ReferenceServer {
  url: string;
  tilecast: Tilecast;
  /** What to print at start: the demo token and a working curl line, or what the seed loaded. */
  banner: string;
  close(): Promise<void>;
}

/** Builds and starts the reference deployment. Used by `npm start` and by the end-to-end tests. */
export async function startReferenceServer(config: ServerConfig, logger: Logger = consoleLogger): Promise<ReferenceServer> {
  if (config.databaseUrl !== null) {
    // PostgreSQL storage is a later slice; refuse rather than silently keep data in memory.
    throw new Error('DATABASE_URL is set, but this build has no PostgreSQL storage yet: unset it to use in-memory storage');
  }
  const storage = createMemoryStorage();
  const tilecast = createTilecast({ storage, logger, sse: config.sse });
  const banner = await seed(tilecast, config.seedPath);
  // The device API lives under /device; its stream is this deployment's device transport.
  const server = await listen(mount({ '/': tilecast, '/device': tilecast.device }), { port: config.port, host: config.host });
  return {
    url: server.url,
    tilecast,
    banner: banner(server.url),
    async close() {
      await server.close();
      await tilecast.close();
      await storage.close();
    },
  };
}

async function seed(tilecast: Tilecast, seedPath: string | null): Promise<(url: string) => string> {
  if (seedPath === null) {
    const demo = await createDemoAccount(tilecast);
    return (url) => demoInstructions(url, demo);
  }
  const result = await tilecast.loadSeed(JSON.parse(await readFile(seedPath, 'utf8')));
  return () => `Loaded ${seedPath}: accounts ${result.accounts.map((a) => a.id).join(', ')}`;
}
