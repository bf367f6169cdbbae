import { durationProblem, isLogLevel, LOG_LEVELS, parseCidr, parseDuration } from '@zw/core';
import { Command, CommanderError, Option } from 'commander';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The agent's configuration: every setting is a flag and an environment variable (the flag wins), checked
 * at start so that a bad value stops the agent with a message naming the setting, before it touches the
 * cluster or the API.
 */

export interface AgentConfig {
  /** Base URL of the zonewise API, without the ingest path. */
  apiUrl: string;
  /** Exactly one of token and tokenFile; a token file is re-read on every push (rotation without restart). */
  token: string | null;
  tokenFile: string | null;
  /** Sent as `X-Zonewise-Cluster`: the API refuses a token of another cluster than the one named here. */
  cluster: string | null;
  kubeconfig: string | null;
  inCluster: boolean;
  /** Service CIDRs for clusters that have no ServiceCIDR objects (before Kubernetes 1.33). */
  serviceCidrs: string[];
  pushMinIntervalMs: number;
  pushMaxIntervalMs: number;
  settleMs: number;
  pushTimeoutMs: number;
  retryInitialMs: number;
  retryMaxMs: number;
  spoolDir: string | null;
  spoolMaxSnapshots: number;
  spoolMaxBytes: number;
  relistIntervalMs: number;
  watchStallTimeoutMs: number;
  healthHost: string;
  healthPort: number;
  shutdownTimeoutMs: number;
  logLevel: string;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  ${problem}`).join('\n')}`);
  }
}

export const AGENT_TOKEN_PREFIX = 'zwa_';

interface RawOptions {
  apiUrl?: string;
  token?: string;
  tokenFile?: string;
  cluster?: string;
  kubeconfig?: string;
  inCluster?: boolean;
  serviceCidr?: string;
  pushMinInterval: string;
  pushMaxInterval: string;
  settle: string;
  pushTimeout: string;
  retryInitial: string;
  retryMax: string;
  spoolDir: string;
  spoolMaxSnapshots: string;
  spoolMaxMib: string;
  relistInterval: string;
  watchStallTimeout: string;
  healthHost: string;
  healthPort: string;
  shutdownTimeout: string;
  logLevel: string;
}

function option(flags: string, description: string, env: string, defaultValue?: string): Option {
  const result = new Option(flags, description).env(env);
  return defaultValue === undefined ? result : result.default(defaultValue);
}

export function buildAgentCommand(): Command {
  return new Command('zonewise-agent')
    .description('Watches Nodes, Services, EndpointSlices and ServiceCIDRs and pushes compact snapshots to zonewise.')
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: (text) => process.stdout.write(text) })
    .allowExcessArguments(false)
    .addOption(
      option('--api-url <url>', 'zonewise API base URL, e.g. https://zonewise.example.com', 'ZONEWISE_API_URL'),
    )
    .addOption(option('--token <token>', "the cluster's agent token (zwa_…)", 'ZONEWISE_AGENT_TOKEN'))
    .addOption(
      option('--token-file <path>', 'file holding the agent token, re-read on every push', 'ZONEWISE_AGENT_TOKEN_FILE'),
    )
    .addOption(option('--cluster <name-or-id>', 'the cluster this agent believes it pushes for', 'ZONEWISE_CLUSTER'))
    .addOption(
      option(
        '--kubeconfig <path>',
        'kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)',
        'ZONEWISE_KUBECONFIG',
      ),
    )
    .addOption(new Option('--in-cluster', 'use the pod service account (the default when no kubeconfig is found)'))
    .addOption(
      option(
        '--service-cidr <cidrs>',
        'comma-separated Service CIDRs, for clusters without ServiceCIDR objects',
        'ZONEWISE_SERVICE_CIDR',
      ),
    )
    .addOption(
      option(
        '--push-min-interval <duration>',
        'at most one push per this interval',
        'ZONEWISE_PUSH_MIN_INTERVAL',
        '30s',
      ),
    )
    .addOption(
      option(
        '--push-max-interval <duration>',
        'push at least this often, changed or not',
        'ZONEWISE_PUSH_MAX_INTERVAL',
        '5m',
      ),
    )
    .addOption(
      option('--settle <duration>', 'after a change, wait this long for more before pushing', 'ZONEWISE_SETTLE', '1s'),
    )
    .addOption(option('--push-timeout <duration>', 'longest one push request may take', 'ZONEWISE_PUSH_TIMEOUT', '60s'))
    .addOption(
      option('--retry-initial <duration>', 'first retry delay after a failed push', 'ZONEWISE_RETRY_INITIAL', '1s'),
    )
    .addOption(option('--retry-max <duration>', 'longest retry delay', 'ZONEWISE_RETRY_MAX', '5m'))
    .addOption(
      option(
        '--spool-dir <path>',
        'directory for snapshots not yet accepted ("" keeps them in memory only)',
        'ZONEWISE_SPOOL_DIR',
        join(tmpdir(), 'zonewise-agent-spool'),
      ),
    )
    .addOption(
      option(
        '--spool-max-snapshots <n>',
        'most snapshots kept while the API is unreachable (newest kept)',
        'ZONEWISE_SPOOL_MAX_SNAPSHOTS',
        '100',
      ),
    )
    .addOption(
      option(
        '--spool-max-mib <n>',
        'most MiB of compressed snapshots kept (newest kept)',
        'ZONEWISE_SPOOL_MAX_MIB',
        '256',
      ),
    )
    .addOption(
      option(
        '--relist-interval <duration>',
        'full re-list of every resource this often',
        'ZONEWISE_RELIST_INTERVAL',
        '15m',
      ),
    )
    .addOption(
      option(
        '--watch-stall-timeout <duration>',
        'restart a watch that has been silent this long',
        'ZONEWISE_WATCH_STALL_TIMEOUT',
        '3m',
      ),
    )
    .addOption(
      option('--health-host <host>', 'address of the health and metrics server', 'ZONEWISE_HEALTH_HOST', '0.0.0.0'),
    )
    .addOption(
      option(
        '--health-port <port>',
        'port of the health and metrics server (0: any free port)',
        'ZONEWISE_HEALTH_PORT',
        '8080',
      ),
    )
    .addOption(
      option(
        '--shutdown-timeout <duration>',
        'on SIGTERM, longest time spent delivering what is pending',
        'ZONEWISE_SHUTDOWN_TIMEOUT',
        '10s',
      ),
    )
    .addOption(option('--log-level <level>', LOG_LEVELS.join('|'), 'ZONEWISE_LOG_LEVEL', 'info'));
}

/**
 * Reads the configuration from the command line (`argv` without node and script) and the environment.
 * Throws ConfigError listing every problem; `--help` prints and returns null.
 */
export function parseAgentConfig(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): AgentConfig | null {
  const command = buildAgentCommand();
  const saved = process.env;
  let raw: RawOptions;
  try {
    // Commander reads option environment variables from process.env only.
    process.env = { ...env };
    command.parse(argv, { from: 'user' });
    raw = command.opts<RawOptions>();
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return null;
      throw new ConfigError([error.message.replace(/^error: /, '')]);
    }
    throw error;
  } finally {
    process.env = saved;
  }
  return validate(raw);
}

function validate(raw: RawOptions): AgentConfig {
  const problems: string[] = [];
  const durationOf = (flag: string, text: string, minMs: number): number => {
    const problem = durationProblem(flag, text, { minMs });
    if (problem) problems.push(problem);
    return parseDuration(text) ?? 0;
  };
  const integerOf = (flag: string, text: string, min: number, max: number): number => {
    const value = Number(text);
    if (!/^\d+$/.test(text.trim()) || value < min || value > max) {
      problems.push(`${flag}: expected a whole number from ${min} to ${max}, got "${text}"`);
    }
    return value;
  };

  const apiUrl = checkApiUrl(raw.apiUrl, problems);
  const token = raw.token?.trim() || null;
  const tokenFile = raw.tokenFile?.trim() || null;
  if (token && tokenFile) problems.push('--token and --token-file: give only one');
  if (!token && !tokenFile)
    problems.push('--token or --token-file (ZONEWISE_AGENT_TOKEN / ZONEWISE_AGENT_TOKEN_FILE) is required');
  if (token && !token.startsWith(AGENT_TOKEN_PREFIX)) {
    problems.push(
      `--token: expected an agent token starting with "${AGENT_TOKEN_PREFIX}" (npm run cluster:create prints it)`,
    );
  }
  if (raw.kubeconfig && raw.inCluster) problems.push('--kubeconfig and --in-cluster: give only one');

  const serviceCidrs = (raw.serviceCidr ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  for (const cidr of serviceCidrs) {
    try {
      parseCidr(cidr);
    } catch (error) {
      problems.push(`--service-cidr: "${cidr}": ${(error as Error).message}`);
    }
  }

  const config: AgentConfig = {
    apiUrl,
    token,
    tokenFile,
    cluster: raw.cluster?.trim() || null,
    kubeconfig: raw.kubeconfig?.trim() || null,
    inCluster: raw.inCluster === true,
    serviceCidrs,
    pushMinIntervalMs: durationOf('--push-min-interval', raw.pushMinInterval, 0),
    pushMaxIntervalMs: durationOf('--push-max-interval', raw.pushMaxInterval, 1000),
    settleMs: durationOf('--settle', raw.settle, 0),
    pushTimeoutMs: durationOf('--push-timeout', raw.pushTimeout, 100),
    retryInitialMs: durationOf('--retry-initial', raw.retryInitial, 10),
    retryMaxMs: durationOf('--retry-max', raw.retryMax, 10),
    spoolDir: raw.spoolDir.trim() === '' ? null : raw.spoolDir,
    spoolMaxSnapshots: integerOf('--spool-max-snapshots', raw.spoolMaxSnapshots, 1, 100_000),
    spoolMaxBytes: integerOf('--spool-max-mib', raw.spoolMaxMib, 1, 1_000_000) * 1024 * 1024,
    relistIntervalMs: durationOf('--relist-interval', raw.relistInterval, 1000),
    watchStallTimeoutMs: durationOf('--watch-stall-timeout', raw.watchStallTimeout, 1000),
    healthHost: raw.healthHost,
    healthPort: integerOf('--health-port', raw.healthPort, 0, 65535),
    shutdownTimeoutMs: durationOf('--shutdown-timeout', raw.shutdownTimeout, 0),
    logLevel: raw.logLevel,
  };
  if (!isLogLevel(config.logLevel)) {
    problems.push(`--log-level: expected one of ${LOG_LEVELS.join(', ')}, got "${config.logLevel}"`);
  }
  if (problems.length === 0 && config.pushMinIntervalMs > config.pushMaxIntervalMs) {
    problems.push('--push-min-interval: must not be longer than --push-max-interval');
  }
  if (problems.length === 0 && config.retryInitialMs > config.retryMaxMs) {
    problems.push('--retry-initial: must not be longer than --retry-max');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

function checkApiUrl(text: string | undefined, problems: string[]): string {
  if (!text?.trim()) {
    problems.push('--api-url (ZONEWISE_API_URL) is required');
    return '';
  }
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    problems.push(`--api-url: "${text}" is not a URL`);
    return '';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    problems.push(`--api-url: expected an http:// or https:// URL, got "${text}"`);
  }
  if (url.search || url.hash) problems.push('--api-url: expected a base URL without query or fragment');
  return url.toString().replace(/\/+$/, '');
}
