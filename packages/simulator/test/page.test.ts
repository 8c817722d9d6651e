/** The page handler on a real `node:http` server over 127.0.0.1. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSimulatorPage, type SimulatorPageOptions } from '@tilecast/simulator/page';

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** The page in front of a fallback that answers 404 `fallback`, like Tilecast's own router. */
async function start(options: SimulatorPageOptions): Promise<string> {
  const page = createSimulatorPage(options);
  server = createServer((req, res) => {
    if (!page(req, res)) res.writeHead(404).end('fallback');
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

describe('createSimulatorPage', () => {
  it('serves the page at / (with a query string) with a strict content security policy', async () => {
    const base = await start({});
    const response = await fetch(`${base}/?toggleWaitMs=3000`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(await response.text()).toContain('<script type="module" src="/simulator.js"></script>');
    const css = await fetch(`${base}/simulator.css`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('hands the config to the page only when given one', async () => {
    const withDemo = await start({ config: { deviceToken: 'dev_demo' } });
    expect(await (await fetch(`${withDemo}/simulator-config.json`)).json()).toEqual({ deviceToken: 'dev_demo' });
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    const seeded = await start({ config: null });
    const response = await fetch(`${seeded}/simulator-config.json`);
    expect(response.status).toBe(404);
    expect(await response.text()).toBe('fallback');
  });

  it('leaves every other path and method to the next handler', async () => {
    const base = await start({});
    for (const [method, path] of [
      ['GET', '/widget/lights'],
      ['POST', '/'],
      ['GET', '/page/index.html'],
      ['GET', '/../package.json'],
    ] as const) {
      const response = await fetch(`${base}${path}`, { method });
      expect(await response.text(), `${method} ${path}`).toBe('fallback');
    }
  });

  it('answers HEAD without a body', async () => {
    const base = await start({});
    const response = await fetch(`${base}/`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(Number(response.headers.get('content-length'))).toBeGreaterThan(0);
  });
});
