import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

/**
 * The dashboard's speed:
 *  - the first page's initial JavaScript, gzip: the entry chunk and the Fleet page's chunk with every
 *    chunk they import statically (what loads before the page can draw); the chart library is a chunk of
 *    its own loaded after, reported beside it;
 *  - in Chromium, the fleet page of 1,000 clusters and the Services page of a 10,000-Service cluster:
 *    the page's own work against the API answer it waits for, both timed inside the same page.
 *
 * Decision: what must stay within 2x of the API is the page's own work (fetch, parse, draw) as the fleet
 * grows, not the fixed cost of starting the application. A person opens the dashboard once and moves
 * between pages, so "usable" is an in-app navigation: the app is loaded (its page chunks too, as it
 * preloads them when idle), nothing of the data is cached (a reload empties the query cache and the
 * browser's HTTP cache is off, so no answer comes back as a 304), a click on the link the person would
 * click, until the table holds real data rows (the first page of 50 clusters or Services, each row a
 * cluster or Service of the answer). "The API answer alone" is `fetch` + `json()` of exactly the request
 * the table waits for, from the same page, with the same headers, interleaved with the navigations so
 * both see the same load. The API runs without its read-model cache, so both get the whole answer
 * computed. Opening the page cold (a fresh browser context: nothing cached, every chunk downloaded,
 * React started) is reported beside it, with its fixed cost.
 *
 * Budgets (issue 26, on this machine; reported, never asserted in tests): a cold open to the first rows
 * within 1 s, a warm page change (the in-app click above) within 300 ms, each beside its API answer.
 */

/** dist/dashboard, found upwards from here (dist/bench when built, bench/ when run from source). */
function findDashboard(): string {
  for (let directory = __dirname; dirname(directory) !== directory; directory = dirname(directory)) {
    if (existsSync(join(directory, 'dist', 'dashboard', 'index.html'))) return join(directory, 'dist', 'dashboard');
    if (existsSync(join(directory, 'dashboard', '.vite'))) return join(directory, 'dashboard');
  }
  return join(__dirname, '..', 'dashboard');
}

const DASHBOARD = findDashboard();
const INITIAL_BUDGET_BYTES = 250 * 1024;
const TARGET_RATIO = 2;
/** Issue 26's budgets on this machine: a cold open to the first rows, and a warm page change. */
const COLD_BUDGET_MS = 1000;
const WARM_BUDGET_MS = 300;
const RUNS = 11;
const COLD_RUNS = 3;
/**
 * Decision: the timings run in Chromium's headless shell (Debian's chromium-headless-shell, what Playwright
 * itself runs for headless Chromium): the browser's Blink and V8, without the hidden window of the full
 * browser in headless mode. On each URL change that window's toolbar and tab strip were updated and
 * redrawn, 7-10 ms of CPU in the browser process, taken from the two cores this machine shares between
 * the browser, the API and Postgres, which slowed the very answer the page waits for (its request took
 * 13-30 ms during a navigation against 9-10 ms alone). On a person's computer that work runs on their
 * own cores, not the server's. The full browser's figures are printed beside them, for information.
 */
const HEADLESS_SHELL = process.env.CHROMIUM_HEADLESS_SHELL_PATH ?? '/usr/bin/chromium-headless-shell';
const FULL_BROWSER = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}

function chunkClosure(manifest: Record<string, ManifestChunk>, roots: string[]): string[] {
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key) || !manifest[key]) return;
    seen.add(key);
    for (const next of manifest[key].imports ?? []) visit(next);
  };
  roots.forEach(visit);
  return [...seen].map((key) => manifest[key].file);
}

const gzipBytes = (files: string[]) =>
  files.reduce((sum, file) => sum + gzipSync(readFileSync(join(DASHBOARD, file))).length, 0);

export function dashboardSizeLines(): string[] {
  const manifestFile = join(DASHBOARD, '.vite', 'manifest.json');
  if (!existsSync(manifestFile)) return ['dashboard: skipped: not built (npm run build)'];
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<string, ManifestChunk>;
  const initial = chunkClosure(manifest, ['index.html', 'src/pages/fleet.tsx']);
  const charts = chunkClosure(manifest, ['src/components/echarts-parts.ts']).filter((file) => !initial.includes(file));
  const initialBytes = gzipBytes(initial);
  const verdict = initialBytes <= INITIAL_BUDGET_BYTES ? 'ok' : 'OVER';
  return [
    `dashboard: first page (Fleet) initial JavaScript: ${initial.length} chunks, ${(initialBytes / 1024).toFixed(1)} KiB gzip; the chart library after it: ${(gzipBytes(charts) / 1024).toFixed(1)} KiB gzip`,
    `dashboard first page initial JS: ${(initialBytes / 1024).toFixed(1)} KiB gzip (budget <= ${INITIAL_BUDGET_BYTES / 1024} KiB): ${verdict}`,
  ];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The page chunks the dashboard preloads when idle (its manifest's entries for src/pages/). */
function pageChunks(): string[] {
  const manifest = JSON.parse(readFileSync(join(DASHBOARD, '.vite', 'manifest.json'), 'utf8')) as Record<
    string,
    ManifestChunk
  >;
  return Object.entries(manifest)
    .filter(([key]) => key.startsWith('src/pages/'))
    .map(([, chunk]) => `/${chunk.file}`);
}

interface PageUnderTest {
  what: string;
  apiKey: string;
  /** The page the person starts from, and the link on it they click. */
  from: string;
  link: string;
  /** Where the page lands, opened cold. */
  path: string;
  /** The request the table waits for. */
  api: string;
  /** A data row of the table (the attribute each row of the answer carries), and how many the page draws. */
  row: string;
  rows: number;
}

async function signedInContext(browser: Browser, apiKey: string): Promise<BrowserContext> {
  const context = await browser.newContext();
  await context.addInitScript({ content: `sessionStorage.setItem('zonewise.apiKey', ${JSON.stringify(apiKey)})` });
  return context;
}

/**
 * The page's globals the functions run in the page use (the bench compiles without the DOM library).
 * Functions, not strings, go to the page: the dashboard's Content-Security-Policy forbids evaluating strings.
 */
interface PageGlobals {
  document: {
    querySelectorAll(selector: string): { length: number };
    querySelector(selector: string): { click(): void } | null;
    body: unknown;
  };
  sessionStorage: { getItem(name: string): string | null };
  requestIdleCallback(callback: () => void, options: { timeout: number }): void;
  performance: { now(): number; getEntriesByType(type: string): { name: string }[] };
  MutationObserver: new (callback: () => void) => {
    observe(target: unknown, options: { childList: boolean; subtree: boolean }): void;
    disconnect(): void;
  };
}

/** Waits until the page drew `count` rows matching `selector` (checked at each frame). */
async function rowsDrawn(page: Page, selector: string, count: number): Promise<void> {
  await page.waitForFunction(
    ({ selector, count }) => (globalThis as unknown as PageGlobals).document.querySelectorAll(selector).length >= count,
    { selector, count },
    { timeout: 120_000, polling: 'raf' },
  );
}

/** Cold: a fresh context (nothing cached), from navigation to the rows drawn (medians of COLD_RUNS). */
async function coldOpen(browser: Browser, apiUrl: string, target: PageUnderTest) {
  const times: number[] = [];
  for (let run = 0; run < COLD_RUNS; run++) {
    const context = await signedInContext(browser, target.apiKey);
    const page = await context.newPage();
    await page.goto(`${apiUrl}${target.path}`, { waitUntil: 'commit' });
    await rowsDrawn(page, target.row, target.rows);
    times.push(await page.evaluate(() => (globalThis as unknown as PageGlobals).performance.now()));
    await context.close();
  }
  return median(times);
}

/** The start page loaded and settled, every page chunk preloaded, the query cache empty. */
async function reloadStart(page: Page, apiUrl: string, target: PageUnderTest, chunks: string[]): Promise<void> {
  await page.goto(`${apiUrl}${target.from}`);
  await page.waitForSelector(target.link, { timeout: 120_000 });
  await page.waitForFunction(
    (files) => {
      const { performance } = globalThis as unknown as PageGlobals;
      const loaded = performance.getEntriesByType('resource').map((entry) => entry.name);
      return files.every((file) => loaded.some((name) => name.endsWith(file)));
    },
    chunks,
    { timeout: 60_000, polling: 100 },
  );
  // Settled: nothing loading any more, every chart drawn, then one idle moment of the main thread.
  await page.waitForFunction(
    () => {
      const { document } = globalThis as unknown as PageGlobals;
      const charts = document.querySelectorAll('.chart').length;
      return (
        document.querySelectorAll('.loading').length === 0 && document.querySelectorAll('.chart svg').length >= charts
      );
    },
    undefined,
    { timeout: 120_000, polling: 100 },
  );
  await page.evaluate(
    () =>
      new Promise<void>((resolve) =>
        (globalThis as unknown as PageGlobals).requestIdleCallback(() => resolve(), { timeout: 2000 }),
      ),
  );
}

/** Milliseconds of `fetch` + `json()` of the table's request, in the page, with the page's own headers. */
function apiAloneInPage(page: Page, path: string): Promise<number> {
  return page.evaluate(async (path) => {
    const { sessionStorage, performance } = globalThis as unknown as PageGlobals;
    const key = sessionStorage.getItem('zonewise.apiKey');
    const started = performance.now();
    const response = await fetch(path, { headers: { accept: 'application/json', authorization: `Bearer ${key}` } });
    await response.json();
    if (!response.ok) throw new Error(`${path} answered ${response.status}`);
    return performance.now() - started;
  }, path);
}

/** Milliseconds from the click on the link to the table's data rows in the document. */
function navigationInPage(page: Page, target: PageUnderTest): Promise<number> {
  return page.evaluate(
    ({ link, row, rows }) =>
      new Promise<number>((resolve, reject) => {
        const { document, performance, MutationObserver } = globalThis as unknown as PageGlobals;
        const anchor = document.querySelector(link);
        if (!anchor) return reject(new Error(`no ${link} on the page`));
        const drawn = () => document.querySelectorAll(row).length >= rows;
        const started = performance.now();
        const observer = new MutationObserver(() => {
          if (!drawn()) return;
          observer.disconnect();
          resolve(performance.now() - started);
        });
        observer.observe(document.body, { childList: true, subtree: true });
        anchor.click();
      }),
    { link: target.link, row: target.row, rows: target.rows },
  );
}

async function withBrowser(executablePath: string, use: (browser: Browser) => Promise<void>): Promise<void> {
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  });
  try {
    await use(browser);
  } finally {
    await browser.close();
  }
}

const browserName = (executablePath: string) =>
  executablePath === HEADLESS_SHELL ? "Chromium's headless shell" : 'the full Chromium, headless';

/** In-app navigation against the API answer alone, interleaved, in one signed-in page (medians of RUNS). */
async function inApp(browser: Browser, apiUrl: string, target: PageUnderTest) {
  const context = await signedInContext(browser, target.apiKey);
  const page = await context.newPage();
  const devtools = await context.newCDPSession(page);
  await devtools.send('Network.enable');
  await devtools.send('Network.setCacheDisabled', { cacheDisabled: true });
  const chunks = pageChunks();
  const alone: number[] = [];
  const usable: number[] = [];
  try {
    for (let run = 0; run < RUNS; run++) {
      await reloadStart(page, apiUrl, target, chunks);
      alone.push(await apiAloneInPage(page, target.api));
      usable.push(await navigationInPage(page, target));
    }
    return { alone: median(alone), usable: median(usable) };
  } finally {
    await context.close();
  }
}

export interface DashboardBenchInput {
  /** The API serving the dashboard (its read-model cache off, so every answer is computed). */
  apiUrl: string;
  fleet: { apiKey: string; clusters: number };
  large: { apiKey: string; clusterId: string; services: number };
}

export async function dashboardPageLines(input: DashboardBenchInput): Promise<string[]> {
  const measured = existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : FULL_BROWSER;
  if (!existsSync(measured))
    return [`dashboard: page timings skipped: no chromium at ${HEADLESS_SHELL} or ${FULL_BROWSER}`];
  if (!existsSync(join(DASHBOARD, 'index.html'))) return ['dashboard: page timings skipped: not built'];
  const pages: PageUnderTest[] = [
    {
      what: `fleet page of ${input.fleet.clusters} clusters`,
      apiKey: input.fleet.apiKey,
      from: '/reports',
      link: 'header nav a[href="/"]',
      path: '/',
      api: '/v1/fleet',
      row: '[data-testid=clusters-table] tbody tr[data-cluster]',
      rows: Math.min(50, input.fleet.clusters),
    },
    {
      what: `Services page of a ${input.large.services}-Service cluster`,
      apiKey: input.large.apiKey,
      from: '/',
      link: `[data-testid=clusters-table] a[href="/clusters/${input.large.clusterId}"]`,
      path: `/clusters/${input.large.clusterId}`,
      api: `/v1/clusters/${input.large.clusterId}/services?limit=50`,
      row: '[data-testid=services-table] tbody tr[data-service]',
      rows: 50,
    },
  ];
  const lines: string[] = [];
  await withBrowser(measured, async (browser) => {
    for (const target of pages) {
      const { alone, usable } = await inApp(browser, input.apiUrl, target);
      const cold = await coldOpen(browser, input.apiUrl, target);
      const ratio = usable / alone;
      lines.push(
        `dashboard ${target.what} cold open to first rows: ${cold.toFixed(0)} ms, its API answer alone ${alone.toFixed(1)} ms (budget <= ${COLD_BUDGET_MS} ms): ${cold <= COLD_BUDGET_MS ? 'ok' : 'OVER'}`,
        `dashboard ${target.what} warm page change (app loaded, a click to first rows): ${usable.toFixed(1)} ms, its API answer alone ${alone.toFixed(1)} ms (budget <= ${WARM_BUDGET_MS} ms): ${usable <= WARM_BUDGET_MS ? 'ok' : 'OVER'}`,
        `dashboard: ${target.what}: usable (click to ${target.rows} data rows drawn, app loaded) ${usable.toFixed(1)} ms; its API answer alone (${target.api.split('?')[0]}, fetch + json in the page) ${alone.toFixed(1)} ms; opened cold (fresh context) ${cold.toFixed(0)} ms, of which ${(cold - usable).toFixed(0)} ms fixed cost (chunks, React, first paint); in ${browserName(measured)}`,
        `dashboard ${target.what} ratio: ${ratio.toFixed(2)}x the API answer (target <= ${TARGET_RATIO}x): ${ratio <= TARGET_RATIO ? 'ok' : 'OVER'}`,
      );
    }
  });
  if (measured !== FULL_BROWSER && existsSync(FULL_BROWSER)) {
    await withBrowser(FULL_BROWSER, async (browser) => {
      for (const target of pages) {
        const { alone, usable } = await inApp(browser, input.apiUrl, target);
        lines.push(
          `dashboard: ${target.what}, for information in ${browserName(FULL_BROWSER)} (its hidden window redrawn on each URL change, on the cores the API answers from): usable ${usable.toFixed(1)} ms, API answer alone ${alone.toFixed(1)} ms, ${(usable / alone).toFixed(2)}x`,
        );
      }
    });
  }
  return lines;
}
