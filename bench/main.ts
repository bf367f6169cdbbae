import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateFleetSnapshot } from '@zw/core';
import { runApiBench } from './api.js';
import { runLimitsBench } from './limits.js';
import { runOrgReadBench } from './org-read.js';
import { dashboardSizeLines } from './dashboard.js';
import { runPipelineBench } from './pipeline.js';
import { runSavingsBench } from './savings.js';
import { runScaleBench } from './scale.js';
import { runSizingBench } from './sizing.js';
import { runTrafficBench } from './traffic.js';

/**
 * `npm run bench`. Speeds are reported as ratios to a floor measured in the same run, never as
 * absolute times to assert on. The last line is the core's ratio.
 */

const KUBERNETES_SCALE = { nodes: 5000, zones: 3, services: 10_000, endpointsPerService: 15 };
const TARGET_RATIO = 1.3;
/** Recommended fixes for every Service, against the analysis alone. */
const FIXES_TARGET_RATIO = 2;
const MEMORY_LIMIT_BYTES = 1024 ** 3;

interface CoreRun {
  inputBytes: number;
  floorMs: number;
  analyzeMs: number;
  maxRssBytes: number;
}

/**
 * `BENCH_ONLY=savings,core` runs just those parts (pipeline, dashboard, api, savings, orgread, traffic, sizing,
 * limits, fixes, core, scale); unset, every part but `scale` runs (a simulated fleet over hours of
 * history: it runs only when asked, see bench/scale.ts).
 */
const PARTS = [
  'pipeline',
  'dashboard',
  'api',
  'savings',
  'orgread',
  'traffic',
  'sizing',
  'limits',
  'fixes',
  'core',
  'scale',
] as const;
type Part = (typeof PARTS)[number];
const ONLY_WHEN_ASKED: Part[] = ['scale'];

function selectedParts(): Set<Part> {
  const asked = (process.env.BENCH_ONLY ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  const unknown = asked.filter((part) => !(PARTS as readonly string[]).includes(part));
  if (unknown.length) {
    console.error(`BENCH_ONLY: unknown part(s) ${unknown.join(', ')}; the parts are ${PARTS.join(', ')}`);
    process.exit(2);
  }
  return new Set(asked.length ? (asked as Part[]) : PARTS.filter((part) => !ONLY_WHEN_ASKED.includes(part)));
}

async function main(): Promise<void> {
  const parts = selectedParts();
  const print = (lines: string[]) => lines.forEach((line) => console.log(line));
  // The pipeline and the API first: the core's ratio is the last line.
  if (parts.has('pipeline')) print(await runPipelineBench());
  if (parts.has('dashboard')) print(dashboardSizeLines());
  // The dashboard's page timings run on the API bench's data (its fleet and large cluster): with `api`,
  // inside it; asked for alone, on the same data without the API's own measurements.
  if (parts.has('api')) print(await runApiBench());
  else if (parts.has('dashboard')) print(await runApiBench({ pagesOnly: true }));
  if (parts.has('savings')) print(await runSavingsBench());
  if (parts.has('orgread')) print(await runOrgReadBench());
  if (parts.has('traffic')) print(await runTrafficBench());
  if (parts.has('sizing')) print(await runSizingBench());
  if (parts.has('limits')) print(await runLimitsBench());
  if (parts.has('scale')) print(await runScaleBench());
  if (!parts.has('fixes') && !parts.has('core')) return;
  const dir = mkdtempSync(join(tmpdir(), 'zonewise-bench-'));
  try {
    const file = join(dir, 'snapshot.json');
    writeFileSync(
      file,
      JSON.stringify(generateFleetSnapshot({ ...KUBERNETES_SCALE, autoShare: 0.5, zoneCpuWeights: [1, 1, 1.5] })),
    );
    if (parts.has('fixes')) printFixesRatio(file);
    if (!parts.has('core')) return;
    const run = runChild<CoreRun>('core-run.js', file);
    const ratio = run.analyzeMs / run.floorMs;
    console.log(
      `core: snapshot at Kubernetes' documented scale limits: ${KUBERNETES_SCALE.nodes} nodes, ${KUBERNETES_SCALE.zones} zones, ${KUBERNETES_SCALE.services} Services, ${KUBERNETES_SCALE.services * KUBERNETES_SCALE.endpointsPerService} endpoints (${(run.inputBytes / 2 ** 20).toFixed(1)} MiB)`,
    );
    console.log(
      `core: floor (JSON.parse input + JSON.stringify output) ${run.floorMs.toFixed(0)} ms; analyze ${run.analyzeMs.toFixed(0)} ms`,
    );
    console.log(
      `core: peak memory ${(run.maxRssBytes / 2 ** 20).toFixed(0)} MiB (limit ${MEMORY_LIMIT_BYTES / 2 ** 20} MiB): ${run.maxRssBytes < MEMORY_LIMIT_BYTES ? 'ok' : 'OVER'}`,
    );
    console.log(
      `core analyze ratio: ${ratio.toFixed(2)}x floor (target <= ${TARGET_RATIO}x): ${ratio <= TARGET_RATIO ? 'ok' : 'OVER'}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function printFixesRatio(file: string): void {
  const fixes = runChild<FixesRun>('recommendations-run.js', file);
  const fixesRatio = fixes.withFixesMs / fixes.analyzeMs;
  console.log(
    `fixes: analysis ${fixes.analyzeMs.toFixed(0)} ms; analysis with ${fixes.fixes} recommended fixes ${fixes.withFixesMs.toFixed(0)} ms`,
  );
  console.log(
    `fixes ratio: ${fixesRatio.toFixed(2)}x the analysis alone (target <= ${FIXES_TARGET_RATIO}x): ${fixesRatio <= FIXES_TARGET_RATIO ? 'ok' : 'OVER'}`,
  );
}

interface FixesRun {
  analyzeMs: number;
  withFixesMs: number;
  fixes: number;
}

/** Runs in a child process pinned to one core, so peak memory is the analysis' own. */
function runChild<T>(scriptName: string, file: string): T {
  const script = join(__dirname, scriptName);
  const args = ['--expose-gc', script, file, '5'];
  const pinned = hasTaskset()
    ? (['taskset', ['-c', '0', process.execPath, ...args]] as const)
    : ([process.execPath, args] as const);
  const result = spawnSync(pinned[0], pinned[1], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (result.status !== 0) throw new Error(`${scriptName} benchmark failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-c', '0', 'true']);
    return true;
  } catch {
    return false;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
