// The page in a real browser: headless Chromium (Debian's `chromium`, driven by playwright-core)
// opens report.html from disk with the network cut off, and must see no request, no console
// error and a drawn (non-empty) SVG in every chart, also in print layout on A4. A screenshot and a
// PDF go to reports/ for a person to look at. Without a browser the test says so in one line:
// skipped on a workstation, failed under CI=true.

import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sync } from '../src/crawler/sync.js';
import { startSimulator } from '../src/simulator/index.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('browser');

// CHROMIUM_PATH, when set, is the only place looked at.
const CANDIDATES = process.env.CHROMIUM_PATH ? [process.env.CHROMIUM_PATH] : ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
const executable = CANDIDATES.find((p) => existsSync(p));
const inCi = process.env.CI === 'true';
const NO_BROWSER = `html-browser: no Chromium found (looked in ${CANDIDATES.join(', ')}): install it with \`apt-get install chromium\` or set CHROMIUM_PATH`;
if (!executable) process.stderr.write(`${NO_BROWSER}${inCi ? '' : ' (skipped: CI is not true)'}\n`);

const REPORTS = fileURLToPath(new URL('../reports/', import.meta.url));
const NOW = new Date('2026-11-23T12:00:00Z');
const CHARTS = ['volume', 'agent_trend', 'endings', 'tool_failures', 'durations', 'weekday_hour', 'abandonment', 'response_times'];
/** A4 at 96 px per inch, less the page's 12 mm margins: 186 mm × 273 mm. */
const A4_CONTENT = { width: 703, height: 1031 };

describe('report.html in headless Chromium', () => {
  it.runIf(!executable && inCi)('needs a browser under CI', () => {
    throw new Error(NO_BROWSER);
  });

  describe.runIf(executable)('with the network disabled', () => {
    let dir: string;
    let page: string;
    let browser: Browser;

    beforeAll(async () => {
      dir = fileDir();
      const db = join(dir, 'demo.duckdb');
      const sim = await startSimulator({ seed: 7, conversations: 1500, now: NOW, days: 28, rateLimit: 100_000 });
      try {
        expect((await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath: db, now: () => sim.clock() })).status).toBe('ok');
      } finally {
        await sim.close();
      }
      const written = await runCli(['report', '--html', '--db', db, '--out', dir, '--since', '2026-11-09', '--until', '2026-11-23']);
      expect(written.code, written.stderr).toBe(0);
      page = join(dir, 'report.html');
      const root = process.getuid?.() === 0;
      browser = await chromium.launch({ executablePath: executable!, args: root ? ['--no-sandbox'] : [] });
    }, 300_000);

    afterAll(async () => {
      await browser?.close();
    });

    it('loads nothing, logs no error, and draws every chart with a size, on screen and on A4', async () => {
      const context = await browser.newContext({ offline: true, viewport: { width: 820, height: 1100 } });
      const requests: string[] = [];
      const errors: string[] = [];
      const url = pathToFileURL(page).href;
      await context.route('**/*', (route) => (route.request().url() === url ? route.continue() : route.abort()));
      const tab = await context.newPage();
      tab.on('request', (r) => {
        if (r.url() !== url) requests.push(r.url());
      });
      tab.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') errors.push(`${m.type()}: ${m.text()}`);
      });
      tab.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
      await tab.goto(url, { waitUntil: 'load' });

      const sizes = async () =>
        tab.$$eval('figure.chart', (figures) =>
          figures.map((f) => {
            const svg = f.querySelector('svg')?.getBoundingClientRect();
            return { chart: f.getAttribute('data-chart'), width: svg?.width ?? 0, height: svg?.height ?? 0 };
          }),
        );
      const screen = await sizes();
      expect(screen.map((s) => s.chart)).toEqual(CHARTS);
      for (const s of screen) {
        expect(s.width, s.chart!).toBeGreaterThan(100);
        expect(s.height, s.chart!).toBeGreaterThan(50);
      }
      expect(await tab.locator('.tile').count()).toBe(6);

      mkdirSync(REPORTS, { recursive: true });
      await tab.screenshot({ path: join(REPORTS, 'html-browser.png'), fullPage: true });
      await tab.screenshot({ path: join(REPORTS, 'html-browser-top.png'), clip: { x: 0, y: 0, width: 820, height: 1100 } });

      // Print: in A4's content width every chart fits across, and each is shorter than a page, so
      // `break-inside: avoid` keeps it whole on one.
      await tab.emulateMedia({ media: 'print' });
      await tab.setViewportSize(A4_CONTENT);
      for (const s of await sizes()) {
        expect(s.width, `${s.chart} on A4`).toBeGreaterThan(100);
        expect(s.width, `${s.chart} on A4`).toBeLessThanOrEqual(A4_CONTENT.width);
        expect(s.height, `${s.chart} on A4`).toBeLessThan(A4_CONTENT.height);
      }
      const overflow = await tab.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBe(0);
      await tab.pdf({ path: join(REPORTS, 'html-browser.pdf'), format: 'A4', printBackground: true });

      expect(requests).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    }, 300_000);
  });
});
