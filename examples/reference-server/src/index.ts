import { readFile } from 'node:fs/promises';
import { listen, mount } from '@tilecast/adapter-node-http';
import { consoleLogger, createTilecast, type Logger, type Tilecast } from '@tilecast/core';
import type { ServerConfig } from './config.js';
import { createDemoAccount, demoInstructions } from './demo.js';
import { openStorage } from './storage.js';

export interface ReferenceServer {
  url: string;
  tilecast: Tilecast;
  /** What to print at start: the demo token and a working curl line, or what the seed loaded. */
  banner: string;
  close(): Promise<void>;
}

/** Builds and starts the reference deployment. Used by `npm start` and by the end-to-end tests. */
export async function startReferenceServer(config: ServerConfig, logger: Logger = consoleLogger): Promise<ReferenceServer> {
  const opened = await openStorage(config.databaseUrl, config.databaseSchema, logger);
  const { storage } = opened;
  // The core logs a warning when private targets are allowed; NODE_EXTRA_CA_CERTS trusts a test receiver's CA.
  const tilecast = createTilecast({ storage, logger, sse: config.sse, webhooks: { allowPrivateNetworks: config.webhookAllowPrivate } });
  await opened.ready();
  const banner = await seed(tilecast, config.seedPath);
  // The device API lives under /device; its stream is this deployment's device transport.
  const server = await listen(mount({ '/': tilecast, '/device': tilecast.device }), { port: config.port, host: config.host });
  return {
    url: server.url,
    tilecast,
    banner: `Storage: ${opened.description}\n${banner(server.url)}`,
    async close() {
      await server.close();
      await tilecast.close();
      await opened.close();
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
