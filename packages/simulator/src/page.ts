/**
 * Serves the simulator page: `GET /` and its assets, for a `node:http` server. Compose it
 * in front of Tilecast's own listener: it answers only the paths it owns.
 */
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** What the page is told at start (`GET /simulator-config.json`). */
export interface SimulatorConfig {
  /** Pre-fills the device token field (the demo phone's token when the server made one). */
  deviceToken?: string;
}

export interface SimulatorPageOptions {
  /** Null or absent: `/simulator-config.json` is not served, and the page starts empty. */
  config?: SimulatorConfig | null;
}

/** Handles the request and returns true when it is one of the page's; false leaves it to the caller. */
export type SimulatorPageHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

// Both `src/page.ts` and `dist/page.js` sit one level below the package root.
const packageRoot = new URL('../', import.meta.url);

const ASSETS: Record<string, { file: string; type: string }> = {
  '/': { file: 'page/index.html', type: 'text/html; charset=utf-8' },
  '/simulator.css': { file: 'page/simulator.css', type: 'text/css; charset=utf-8' },
  '/simulator.js': { file: 'dist/browser/simulator.js', type: 'text/javascript; charset=utf-8' },
  '/simulator.js.map': { file: 'dist/browser/simulator.js.map', type: 'application/json' },
};

/** The page talks only to its own origin; inline style attributes carry colors from a fixed palette. */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; img-src 'self' data:; style-src 'self'; style-src-attr 'unsafe-inline'; script-src 'self'; connect-src 'self'";

export function createSimulatorPage(options: SimulatorPageOptions = {}): SimulatorPageHandler {
  const config = options.config ? JSON.stringify(options.config) : null;
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/simulator-config.json' && config !== null) {
      send(res, req.method, 200, 'application/json', config);
      return true;
    }
    const asset = ASSETS[path];
    if (asset === undefined) return false;
    void serveFile(req.method, res, asset);
    return true;
  };
}

async function serveFile(method: string, res: ServerResponse, asset: { file: string; type: string }): Promise<void> {
  let body: Buffer;
  try {
    body = await readFile(new URL(asset.file, packageRoot));
  } catch {
    // The browser script is a build output: say how to get it rather than a bare 404.
    send(res, method, 500, 'text/plain; charset=utf-8', `Simulator asset ${asset.file} is missing: run \`npm run build\`.\n`);
    return;
  }
  send(res, method, 200, asset.type, body);
}

function send(res: ServerResponse, method: string, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    // Always the file on disk: the page is a development tool, a rebuild must show at once.
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'content-security-policy': CONTENT_SECURITY_POLICY,
  });
  res.end(method === 'HEAD' ? undefined : body);
}
