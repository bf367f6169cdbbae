import { createPrismaClient } from '@zw/db';
import { type Child, runToCompletion, startChild } from './child-processes.js';
import { ensureDemoTenant } from './demo-api-key.js';
import { DemoConfigError, loadDemoConfig, type DemoConfig } from './demo-config.js';
import { formatFleet, waitForFleet } from './fleet-summary.js';
import { createRunLogDir } from './run-log-dir.js';
import { startTrafficDemo, type TrafficDemo } from './traffic-demo.js';

/**
 * `npm run demo`: the whole product on a built-in demo fleet. Migrates, starts the API and a worker,
 * plays six evolving clusters through the same ingest path a real agent uses, waits until their first
 * snapshots are analysed, prints where to look, then runs until Ctrl-C.
 */

const EXIT_BAD_CONFIG = 2;
const BACKFILL = ['--ticks', '12', '--step', '10m', '--interval', '0s'];

async function main(): Promise<number> {
  let config: DemoConfig;
  try {
    config = loadDemoConfig(process.env);
  } catch (error) {
    if (!(error instanceof DemoConfigError)) throw error;
    process.stderr.write(`zonewise demo: ${error.message}\n`);
    return EXIT_BAD_CONFIG;
  }
  const logDir = createRunLogDir();
  say(`logging to ${logDir}`);
  const env = {
    DATABASE_URL: config.DATABASE_URL,
    REDIS_URL: config.REDIS_URL,
    QUEUE_PREFIX: config.QUEUE_PREFIX,
    PORT: String(config.PORT),
    METRICS_PORT: String(config.METRICS_PORT),
    // The demo's Prometheus listens on 127.0.0.1 (docs/traffic-sources.md: private addresses).
    TRAFFIC_SOURCES_ALLOW_PRIVATE_ADDRESSES: 'true',
    // The demo replays two hours of each cluster's history at once, which no agent does (docs/ingest.md).
    INGEST_RATE_LIMIT_BURST: '100',
  };
  const apiUrl = `http://127.0.0.1:${config.PORT}`;

  say('migrating the database');
  await runToCompletion('migrate', 'scripts/prisma-migrate.mjs', ['deploy'], env, logDir);
  const prisma = createPrismaClient({ databaseUrl: config.DATABASE_URL, poolMax: 1 });
  const tenant = await ensureDemoTenant(prisma, config.ZONEWISE_DEMO_API_KEY).finally(() => prisma.$disconnect());

  const children: Child[] = [];
  let traffic: TrafficDemo | undefined;
  const stopAll = async () => {
    for (const child of [...children].reverse()) await child.stop();
    await traffic?.stop();
  };
  try {
    say('starting the API and a worker');
    children.push(startChild('api', 'dist/apps/api/main.js', [], env, logDir));
    await waitForReady(apiUrl, children[0]);
    children.push(startChild('worker', 'dist/apps/worker/main.js', [], env, logDir));

    // The key reaches the simulator in its environment, not its command line (which `ps` shows).
    const simulate = ['--api-url', apiUrl, '--create-clusters'];
    const simulateEnv = { ...env, ZONEWISE_API_KEY: tenant.apiKey };
    say('playing two hours of demo-fleet history');
    await runToCompletion(
      'fleet-backfill',
      'dist/apps/agent/simulate.js',
      [...simulate, ...BACKFILL],
      simulateEnv,
      logDir,
    );
    children.push(
      startChild(
        'fleet',
        'dist/apps/agent/simulate.js',
        [...simulate, '--interval', config.ZONEWISE_DEMO_INTERVAL],
        simulateEnv,
        logDir,
      ),
    );
    const fleet = await waitForFleet(apiUrl, tenant.apiKey, children);
    say('configuring a traffic source for one cluster');
    traffic = await startTrafficDemo(apiUrl, tenant.apiKey);
    const measured = `Measured traffic: cluster ${traffic.cluster}, ${traffic.status} (GET /v1/clusters/{id}/measured-traffic)`;
    printWelcome(apiUrl, tenant.apiKey, config, logDir, `${formatFleet(fleet)}\n\n${measured}`);
    return await runUntilStopped(children);
  } catch (error) {
    process.stderr.write(`zonewise demo: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await stopAll();
  }
}

async function waitForReady(apiUrl: string, api: Child, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (api.process.exitCode !== null) throw new Error(`the API exited during start-up:\n${api.lastLines()}`);
    try {
      if ((await fetch(`${apiUrl}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await delay(250);
  }
  throw new Error(`the API did not become ready within ${timeoutMs / 1000} s (log: ${api.logFile})`);
}

/**
 * Resolves on Ctrl-C or SIGTERM (exit 0), or when a child dies (exit 1, with its last log lines). Once
 * stopping has begun, children exiting is expected (a terminal's Ctrl-C reaches them too) and is not reported.
 */
function runUntilStopped(children: Child[]): Promise<number> {
  return new Promise((resolve) => {
    let stopping = false;
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        if (stopping) return;
        stopping = true;
        say('stopping');
        resolve(0);
      });
    }
    for (const child of children) {
      void child.exited.then((code) => {
        if (stopping) return;
        stopping = true;
        process.stderr.write(
          `zonewise demo: ${child.name} exited (${code}); last lines of ${child.logFile}:\n${child.lastLines()}\n`,
        );
        resolve(1);
      });
    }
  });
}

function printWelcome(apiUrl: string, apiKey: string, config: DemoConfig, logDir: string, fleet: string): void {
  const lines = [
    '',
    'zonewise demo is running',
    `  open ${apiUrl}/   (the dashboard: sign in with the API key below)`,
    `  REST API   ${apiUrl}/v1        (Authorization: Bearer <API key>)`,
    `  API docs   ${apiUrl}/docs      (OpenAPI JSON: ${apiUrl}/docs-json)`,
    `  GraphQL    ${apiUrl}/graphql`,
    ...(config.METRICS_PORT
      ? [`  metrics    http://127.0.0.1:${config.METRICS_PORT}/metrics   (Prometheus; its own port)`]
      : []),
    `  API key    ${apiKey}${config.ZONEWISE_DEMO_API_KEY === undefined ? '   (generated; set ZONEWISE_DEMO_API_KEY to fix it)' : ''}`,
    `  logs       ${logDir}`,
    '',
    `  try: curl -s -H 'Authorization: Bearer ${apiKey}' ${apiUrl}/v1/fleet`,
    '',
    fleet,
    '',
    `New snapshots arrive every ${config.ZONEWISE_DEMO_INTERVAL}. Ctrl-C stops everything.`,
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

function say(message: string): void {
  process.stdout.write(`zonewise demo: ${message}…\n`);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`zonewise demo: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  },
);
