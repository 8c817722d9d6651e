/**
 * The device simulator in a real browser (Debian's chromium driven by playwright-core),
 * against the reference server over 127.0.0.1: pushes appear, a toggle goes through
 * Turning on → filled on a confirming PATCH, an unconfirmed one ends in No response (tile
 * timings shortened through the page's query string), a button shows Sent then returns.
 * Content older than its `stale_after` is marked stale. A screenshot is saved to
 * .test-results/simulator.png.
 *
 * Needs Debian's chromium at /usr/bin/chromium: without it the test skips with one line
 * saying so (`.ci/run` installs it and fails on that skip); a chromium that is there but
 * cannot start fails the test.
 */
import { existsSync } from 'node:fs';
import { access, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@tilecast/core';
import { readConfig } from '../src/config.js';
import { startReferenceServer, type ReferenceServer } from '../src/index.js';

type WidgetTemplate = Parameters<ReferenceServer['tilecast']['management']['createWidget']>[0]['template'];

// `TILECAST_CHROMIUM` names another binary (a missing path simulates a machine without one).
const CHROMIUM = process.env.TILECAST_CHROMIUM || '/usr/bin/chromium';
const NEEDS_CHROMIUM = `needs chromium at ${CHROMIUM}: apt-get install -y chromium`;
const hasChromium = existsSync(CHROMIUM);
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const SCREENSHOT = join(repoRoot, '.test-results', 'simulator.png');
/** Short tile timings for this test: 3 s to `No response`, 1 s + 0.5 s of `Sent`. */
const PAGE_QUERY = '?toggleWaitMs=3000&buttonWaitMs=1000&sentExtraMs=500';

const lights = (hallOn: boolean) => ({
  template: 'switchboard',
  title: 'Living room',
  subtitle: 'Lights and bell',
  gradient: { from: 'indigo', to: 'purple' },
  picture: { url: 'https://example.com/room.jpg', alt: 'The living room at dusk' },
  actions: [
    { id: 'hall', label: 'Hall', kind: 'toggle', on: hallOn, icon: 'lightbulb.fill', color: 'yellow' },
    { id: 'porch', label: 'Porch', kind: 'toggle', on: false, icon: 'lamp.floor', state_words: { off: 'Dark' } },
    { id: 'bell', label: 'Doorbell', icon: 'bell' },
    { id: 'scene', label: 'Movie', icon: 'film', active: true, color: 'orange' },
  ],
});

/** One widget of every other template, created for this test (the demo account has two). */
const hour = (h: number) => new Date(Date.UTC(2030, 0, 1, h)).toISOString();
const OTHER_WIDGETS: Record<string, unknown> = {
  status: { value: { value: 'Armed', text_color: 'green' }, state: { value: 'since 22:00' } },
  progress: {
    progress: {
      style: 'segmented',
      value: 0.5,
      segments: [
        { value: 0.7, fill_color: 'blue', label: 'Wash' },
        { value: 0.2, fill_color: 'teal', label: 'Dry' },
      ],
    },
    state: { value: 'Washing' },
  },
  battery: {
    devices: [
      { name: 'Phone', level: 82, charging: true },
      { name: 'Watch', level: 15 },
      { name: 'Pods', level: 55 },
    ],
  },
  budget: { total: { spent: 420, budget: 600 }, currency: 'EUR', categories: [{ label: 'Food', spent: 250, budget: 300, color: 'orange' }] },
  trend: { value: 21.5, unit: '°C', points: [19, 19.5, 20, 21, 20.5, 21.5], color: 'red' },
  countdown: { target: '2099-01-01T00:00:00Z', subtitle: { value: 'New year' } },
  list: {
    rows: [
      { label: 'Bins', value: { value: 'Tuesday' } },
      { label: 'Post', value: { value: '2 letters' } },
    ],
  },
  prices: {
    entries: [0, 1, 2, 3, 4, 5].map((h, i) => ({
      start: hour(h),
      price: [0.21, 0.18, -0.02, 0.3, 0.35, 0.25][i],
      level: ['medium', 'low', 'low', 'high', 'high', 'medium'][i],
    })),
    unit: '€/kWh',
  },
  energy: { sources: [{ power: 2400, today: 11.2 }], grid: { power: -800 }, battery: { power: 600, level: 64 }, home: { power: 1000, today: 7.5 } },
};

if (!hasChromium) {
  describe('device simulator page in chromium', () => {
    it.skip(`all tests skipped: ${NEEDS_CHROMIUM}`, () => {});
  });
}

describe.skipIf(!hasChromium)('device simulator page in chromium', () => {
  let server: ReferenceServer;
  let context: BrowserContext;
  let userDataDir: string;
  let ownerToken: string;

  beforeAll(async () => {
    // The page's script is a build output: test/global-setup.ts rebuilds it when a source is newer.
    userDataDir = await mkdtemp(join(tmpdir(), 'tilecast-chromium-'));
    // A fresh profile per run: playwright takes the profile directory itself (it refuses --user-data-dir in args).
    context = await chromium
      .launchPersistentContext(userDataDir, { executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true, viewport: { width: 1280, height: 900 } })
      .catch((error: Error) => {
        throw new Error(`chromium at ${CHROMIUM} could not start: ${error.message}`);
      });
    server = await startReferenceServer(readConfig({ PORT: '0' }), silentLogger);
    ownerToken = /API token (\S+)/.exec(server.banner)![1]!;
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await server?.close();
    if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
  });

  async function publish(path: string, body: unknown): Promise<void> {
    const response = await fetch(`${server.url}/${path}`, {
      method: 'PATCH',
      headers: { authorization: `Token ${ownerToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status, `${path}: ${await response.clone().text()}`).toBe(200);
  }

  const tile = (page: Page, id: string) => page.locator(`[data-widget="demo/lights"] .tile[data-action="${id}"]`);
  const statusOf = (page: Page, id: string) => tile(page, id).getAttribute('data-status');
  const lineOf = (page: Page, id: string) => tile(page, id).locator('.tile-line').textContent();

  /** Clicks a tile and waits for the service's answer to the press. */
  async function press(page: Page, id: string): Promise<number> {
    const [response] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/device/presses')), tile(page, id).click()]);
    return response.status();
  }

  it('shows pushes and every tile state, and saves a screenshot', async () => {
    for (const template of Object.keys(OTHER_WIDGETS)) {
      await server.tilecast.management.createWidget({ account: 'demo', slug: template, template: template as WidgetTemplate });
    }
    await server.tilecast.management.createActivity({ account: 'demo', slug: 'deploy', template: 'monitor', dismissalDelayS: 600 });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => message.type() === 'error' && pageErrors.push(message.text()));

    await page.goto(`${server.url}/${PAGE_QUERY}`);
    // Started without a seed: the demo phone's token is pre-filled and the stream opens.
    await expect.poll(() => page.locator('#status').getAttribute('data-state')).toBe('open');

    // A PATCH appears on the page.
    await publish('widget/boiler', { content: { template: 'gauge', value: 64, unit: '°C', label: 'Boiler', min_value: 20, max_value: 90 } });
    await expect.poll(() => page.locator('[data-widget="demo/boiler"] .gauge-value').textContent()).toBe('64°C');
    await publish('widget/lights', { content: lights(false) });
    await expect.poll(() => lineOf(page, 'hall')).toBe('Off');
    expect(await page.locator('[data-widget="demo/lights"] .picture').getAttribute('aria-label')).toBe('The living room at dusk');
    expect(await lineOf(page, 'porch')).toBe('Dark');
    expect(await statusOf(page, 'scene')).toBe('active');

    // Pressing a toggle shows Turning on; the confirming PATCH fills it.
    expect(await press(page, 'hall')).toBe(202);
    expect(await lineOf(page, 'hall')).toBe('Turning on');
    expect(await tile(page, 'hall').getAttribute('class')).toContain('neutral');
    await publish('widget/lights', { content: lights(true) });
    await expect.poll(() => statusOf(page, 'hall')).toBe('on');
    expect(await tile(page, 'hall').getAttribute('class')).toContain('filled');
    expect(await lineOf(page, 'hall')).toBe('On');

    // An unconfirmed toggle: Turning on, then No response, still not filled.
    expect(await press(page, 'porch')).toBe(202);
    expect(await lineOf(page, 'porch')).toBe('Turning on');
    await expect.poll(() => lineOf(page, 'porch'), { timeout: 8_000 }).toBe('No response');
    expect(await tile(page, 'porch').getAttribute('class')).toContain('neutral');

    // A button: Sent with a check mark, then back to its published content.
    expect(await press(page, 'bell')).toBe(202);
    expect(await lineOf(page, 'bell')).toBe('Sent');
    expect(await tile(page, 'bell').locator('.icon.check').count()).toBe(1);
    await expect.poll(() => statusOf(page, 'bell'), { timeout: 5_000 }).toBe('idle');

    // Every other template and two activities, for the screenshot and to see each drawn.
    for (const [slug, content] of Object.entries(OTHER_WIDGETS)) await publish(`widget/${slug}`, { content: { template: slug, ...(content as object) } });
    await publish('activity/build', {
      state: 'ONGOING',
      content: { template: 'progress', progress: { value: 0.4 }, header_left: { value: 'Build #42' }, footer_right: { value: '3 of 8 steps' } },
    });
    await publish('activity/deploy', {
      state: 'ONGOING',
      content: { template: 'monitor', left_column: { header: 'Errors', value: { value: '0' } }, right_column: { header: 'Traffic', value: { value: '12%' } } },
    });
    await publish('activity/deploy', { state: 'IDLE', content: { template: 'monitor', right_column: { header: 'Traffic', value: { value: '100%' } } } });
    await expect.poll(() => page.locator('[data-activity="demo/deploy"]').getAttribute('data-phase')).toBe('end');
    expect(await page.locator('[data-activity="demo/deploy"] .dismissal').textContent()).toMatch(/dismissed in (9|10) min/);
    expect(await page.locator('[data-activity="demo/build"]').getAttribute('data-phase')).toBe('start');
    for (const template of Object.keys(OTHER_WIDGETS)) {
      await expect.poll(() => page.locator(`[data-widget="demo/${template}"]`).getAttribute('data-template')).toBe(template);
    }
    expect(await page.locator('.widget .error, .widget .raw').count()).toBe(0);
    expect(await page.locator('[data-widget="demo/boiler"]').getAttribute('data-stale')).toBe('false');

    await mkdir(join(repoRoot, '.test-results'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    await access(SCREENSHOT);

    // Stale marking: the boiler was created with stale_after 3600 s. The page's clock jumps an
    // hour ahead (playwright's fake clock); widgets without stale_after never go stale.
    await page.clock.install();
    await page.clock.fastForward('01:00:05');
    await expect.poll(() => page.locator('[data-widget="demo/boiler"]').getAttribute('data-stale')).toBe('true');
    expect(await page.locator('[data-widget="demo/boiler"] .stale-badge').textContent()).toBe('Stale');
    expect(await page.locator('[data-widget="demo/lights"]').getAttribute('data-stale')).toBe('false');
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
