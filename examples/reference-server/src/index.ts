import { readFile } from 'node:fs/promises';
import { listen, mount } from '@tilecast/adapter-node-http';
import { consoleLogger, createTilecast, type Logger, type Tilecast } from '@tilecast/core';
import { createSimulatorPage } from '@tilecast/simulator/page';
import { describeApns, prepareApns } from './apns.js';
import type { ServerConfig } from './config.js';
import { createDemoAccount, demoInstructions, type DemoAccount } from './demo.js';
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
  const apnsFactory = config.apns === null ? null : await prepareApns(config.apns, logger);
  const opened = await openStorage(config.databaseUrl, config.databaseSchema, logger, config.databaseDeadlines);
  const { storage } = opened;
  // The core logs a warning when private targets are allowed; NODE_EXTRA_CA_CERTS trusts a test receiver's CA.
  // APNs, when configured, is a transport beside the device stream: pushes go to both.
  const apns = apnsFactory?.(storage);
  const tilecast = createTilecast({ storage, logger, sse: config.sse, webhooks: { allowPrivateNetworks: config.webhookAllowPrivate }, transport: apns });
  await opened.ready();
  const seeded = await seed(tilecast, config.seedPath, config.demoRotate);
  // The device API lives under /device; its stream is this deployment's device transport.
  const api = mount({ '/': tilecast, '/device': tilecast.device });
  // The simulator page answers `GET /` and its assets before Tilecast's 404. Only the demo
  // phone's token is handed to it: a seeded deployment never gives a token away.
  const page = createSimulatorPage({ config: seeded.demo?.deviceToken ? { deviceToken: seeded.demo.deviceToken } : null });
  const server = await listen((req, res) => (page(req, res) ? undefined : api(req, res)), { port: config.port, host: config.host });
  return {
    url: server.url,
    tilecast,
    banner: `Storage: ${opened.description}\n${describeApns(config.apns)}\n${seeded.banner(server.url)}\nDevice simulator: ${server.url}/`,
    async close() {
      await server.close();
      await tilecast.close();
      await apns?.close();
      await opened.close();
    },
  };
}

interface Seeded {
  banner: (url: string) => string;
  /** The demo account, when no seed file was given. */
  demo: DemoAccount | null;
}

async function seed(tilecast: Tilecast, seedPath: string | null, demoRotate: boolean): Promise<Seeded> {
  if (seedPath === null) {
    const demo = await createDemoAccount(tilecast, demoRotate);
    return { banner: (url) => demoInstructions(url, demo), demo };
  }
  // Creates only what is missing: what the app and the API changed survives a restart.
  const result = await tilecast.loadSeed(JSON.parse(await readFile(seedPath, 'utf8')));
  const accounts = result.accounts.map((a) => `${a.id} (${a.created ? 'created' : 'exists, left as it is'})`).join(', ');
  return { banner: () => `Loaded ${seedPath}: accounts ${accounts}`, demo: null };
}
