import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';

/**
 * The dashboard's speed:
 *  - the first page's initial JavaScript, gzip: the entry chunk and the Fleet page's chunk with every
 *    chunk they import statically (what loads before the page can draw); the chart library is a chunk of
 *    its own loaded after, reported beside it;
 *  - in Chromium, the fleet page of 1,000 clusters and the Services page of a 10,000-Service cluster,
 *    from navigation to the table drawn, against the API answer that page waits for, fetched alone.
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
const RUNS = 5;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

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

async function apiAlone(url: string, apiKey: string): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    const response = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    times.push(performance.now() - started);
  }
  return median(times);
}

/** Milliseconds from navigation to `rows` rows in the table, signed in with the key (median of RUNS). */
async function pageUsable(apiUrl: string, path: string, apiKey: string, table: string, rows: number): Promise<number> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  });
  try {
    const times: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      // A fresh context each run: nothing cached by the browser, as a person opening a shared link.
      const context = await browser.newContext();
      await context.addInitScript({ content: `sessionStorage.setItem('zonewise.apiKey', ${JSON.stringify(apiKey)})` });
      const page = await context.newPage();
      await page.goto(`${apiUrl}${path}`, { waitUntil: 'commit' });
      // A function, not a string: the dashboard's Content-Security-Policy forbids evaluating strings.
      await page.waitForFunction(
        ({ selector, count }) =>
          (
            globalThis as unknown as { document: { querySelectorAll(selector: string): { length: number } } }
          ).document.querySelectorAll(selector).length >= count,
        { selector: `[data-testid=${table}] tbody tr`, count: rows },
        { timeout: 120_000, polling: 'raf' },
      );
      times.push(await page.evaluate(() => performance.now()));
      await context.close();
    }
    return median(times);
  } finally {
    await browser.close();
  }
}

export interface DashboardBenchInput {
  /** The API serving the dashboard (its read-model cache off, so every answer is computed). */
  apiUrl: string;
  fleet: { apiKey: string; clusters: number };
  large: { apiKey: string; clusterId: string; services: number };
}

export async function dashboardPageLines(input: DashboardBenchInput): Promise<string[]> {
  if (!existsSync(CHROMIUM)) return [`dashboard: page timings skipped: no chromium at ${CHROMIUM}`];
  if (!existsSync(join(DASHBOARD, 'index.html'))) return ['dashboard: page timings skipped: not built'];
  const pages = [
    {
      what: `fleet page of ${input.fleet.clusters} clusters`,
      path: '/',
      api: '/v1/fleet',
      apiKey: input.fleet.apiKey,
      table: 'clusters-table',
      rows: input.fleet.clusters,
    },
    {
      what: `Services page of a ${input.large.services}-Service cluster`,
      path: `/clusters/${input.large.clusterId}`,
      api: `/v1/clusters/${input.large.clusterId}/services?limit=50`,
      apiKey: input.large.apiKey,
      table: 'services-table',
      rows: 50,
    },
  ];
  const lines: string[] = [];
  for (const page of pages) {
    const alone = await apiAlone(`${input.apiUrl}${page.api}`, page.apiKey);
    const usable = await pageUsable(input.apiUrl, page.path, page.apiKey, page.table, page.rows);
    const ratio = usable / alone;
    lines.push(
      `dashboard: ${page.what}: usable (table drawn) ${usable.toFixed(0)} ms from navigation; its API answer alone (${page.api.split('?')[0]}) ${alone.toFixed(0)} ms`,
      `dashboard ${page.what} ratio: ${ratio.toFixed(2)}x the API answer (target <= ${TARGET_RATIO}x): ${ratio <= TARGET_RATIO ? 'ok' : 'OVER'}`,
    );
  }
  return lines;
}
