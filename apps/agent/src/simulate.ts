import { durationProblem, isLogLevel, LOG_LEVELS, parseDuration } from '@zw/core';
import { Command, CommanderError, Option } from 'commander';
import { AGENT_VERSION } from './version.js';
import { createLogger } from './logger.js';
import { DEMO_FLEET } from './simulator/fleet.js';
import { ensureClusters, RegistrationError } from './simulator/registration.js';
import { runSimulation } from './simulator/simulation.js';

/**
 * `node dist/apps/agent/simulate.js` (npm run simulate): plays the demo fleet into a zonewise API
 * through the agent's ingest path. Exit 0 when done (or stopped by SIGINT/SIGTERM), 2 for bad options.
 */

const EXIT_BAD_CONFIG = 2;

interface RawOptions {
  apiUrl: string;
  token: string[];
  createClusters?: boolean;
  apiKey?: string;
  clusters?: string;
  seed: string;
  ticks?: string;
  interval: string;
  step?: string;
  logLevel: string;
}

class UsageError extends Error {}

function program(): Command {
  return new Command('zonewise-simulate')
    .description(`Plays a demo fleet (${DEMO_FLEET.map((cluster) => cluster.name).join(', ')}) into a zonewise API.`)
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: (text) => process.stdout.write(text) })
    .addOption(
      new Option('--api-url <url>', 'zonewise API base URL').env('ZONEWISE_API_URL').default('http://127.0.0.1:3000'),
    )
    .addOption(
      new Option('--token <cluster=token>', "a cluster's agent token (repeat per cluster)")
        .env('ZONEWISE_SIMULATOR_TOKENS')
        .argParser((value: string, previous: string[] = []) => [...previous, ...value.split(',').filter(Boolean)])
        .default([]),
    )
    .option('--create-clusters', 'create the clusters (or give existing ones new tokens) through the API')
    .addOption(
      new Option('--api-key <key>', "an admin API key of the clusters' organization (for --create-clusters)").env(
        'ZONEWISE_API_KEY',
      ),
    )
    .option('--clusters <names>', 'comma-separated subset of the fleet to play')
    .option('--seed <n>', 'random seed: the same seed plays the same fleet', '1')
    .option('--ticks <n>', 'play this many ticks, then stop (default: until stopped)')
    .option('--interval <duration>', 'wall-clock time between ticks', '30s')
    .option('--step <duration>', 'simulated time between ticks, ending now (needs --ticks): fills a history at once')
    .addOption(new Option('--log-level <level>', 'log level').default('info'));
}

export async function main(argv: readonly string[]): Promise<number> {
  let raw: RawOptions;
  try {
    const command = program();
    command.parse(argv, { from: 'user' });
    raw = command.opts<RawOptions>();
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed') return 0;
      process.stderr.write(`zonewise-simulate: ${error.message.replace(/^error: /, '')}\n`);
      return EXIT_BAD_CONFIG;
    }
    throw error;
  }
  let options;
  try {
    options = checkOptions(raw);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`zonewise-simulate: ${error.message}\n`);
    return EXIT_BAD_CONFIG;
  }
  const logger = createLogger(raw.logLevel, 'zonewise-simulate');

  const tokens = new Map(raw.token.map((pair) => pair.split('=') as [string, string]));
  if (raw.createClusters) {
    if (!raw.apiKey) {
      process.stderr.write(
        'zonewise-simulate: --create-clusters needs --api-key (or ZONEWISE_API_KEY), an admin key\n',
      );
      return EXIT_BAD_CONFIG;
    }
    try {
      for (const [name, { clusterId, agentToken }] of await ensureClusters(raw.apiUrl, raw.apiKey, options.clusters)) {
        tokens.set(name, agentToken);
        logger.info({ cluster: name, clusterId }, 'cluster ready');
      }
    } catch (error) {
      if (!(error instanceof RegistrationError)) throw error;
      process.stderr.write(`zonewise-simulate: creating the clusters: ${error.message}\n`);
      return error.refused ? EXIT_BAD_CONFIG : 1;
    }
  }
  const missing = options.clusters.filter((cluster) => !tokens.has(cluster.name)).map((cluster) => cluster.name);
  if (missing.length === options.clusters.length) {
    process.stderr.write(
      `zonewise-simulate: no agent token for any cluster: pass --token <cluster>=<token> or --create-clusters\n`,
    );
    return EXIT_BAD_CONFIG;
  }
  if (missing.length > 0) logger.warn({ clusters: missing }, 'no token: these clusters are not played');

  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  const result = await runSimulation({
    apiUrl: raw.apiUrl,
    tokens,
    clusters: options.clusters,
    seed: options.seed,
    ticks: options.ticks,
    intervalMs: options.intervalMs,
    clock:
      options.stepMs === null
        ? undefined
        : { startMs: Date.now() - (options.ticks! - 1) * options.stepMs, stepMs: options.stepMs },
    logger,
    signal: stop.signal,
    userAgent: `zonewise-simulate/${AGENT_VERSION}`,
  });
  return result.rejected > 0 ? 1 : 0;
}

function checkOptions(raw: RawOptions) {
  const problems: string[] = [];
  const whole = (flag: string, text: string, min: number) => {
    if (!/^\d+$/.test(text) || Number(text) < min)
      problems.push(`${flag}: expected a whole number ≥ ${min}, got "${text}"`);
    return Number(text);
  };
  const duration = (flag: string, text: string, minMs: number) => {
    const problem = durationProblem(flag, text, { minMs });
    if (problem) problems.push(problem);
    return parseDuration(text) ?? 0;
  };
  try {
    const url = new URL(raw.apiUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      problems.push(`--api-url: expected http(s), got "${raw.apiUrl}"`);
  } catch {
    problems.push(`--api-url: "${raw.apiUrl}" is not a URL`);
  }
  for (const pair of raw.token) {
    if (!/^[^=]+=zwa_\S+$/.test(pair))
      problems.push(`--token: expected <cluster>=<zwa_… token>, got "${pair.replace(/=.*/, '=…')}"`);
  }
  const names = raw.clusters
    ?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const clusters = names ? DEMO_FLEET.filter((cluster) => names.includes(cluster.name)) : [...DEMO_FLEET];
  for (const name of names ?? []) {
    if (!DEMO_FLEET.some((cluster) => cluster.name === name))
      problems.push(`--clusters: no cluster "${name}" in the fleet (${DEMO_FLEET.map((c) => c.name).join(', ')})`);
  }
  if (!isLogLevel(raw.logLevel)) problems.push(`--log-level: expected one of ${LOG_LEVELS.join(', ')}`);
  const ticks = raw.ticks === undefined ? null : whole('--ticks', raw.ticks, 1);
  const stepMs = raw.step === undefined ? null : duration('--step', raw.step, 1);
  if (stepMs !== null && ticks === null) problems.push('--step: needs --ticks (the simulated history ends now)');
  const result = {
    clusters,
    seed: whole('--seed', raw.seed, 0),
    ticks,
    intervalMs: duration('--interval', raw.interval, 0),
    stepMs,
  };
  if (problems.length > 0)
    throw new UsageError(`invalid options:\n${problems.map((problem) => `  ${problem}`).join('\n')}`);
  return result;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`zonewise-simulate: ${(error as Error)?.stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
