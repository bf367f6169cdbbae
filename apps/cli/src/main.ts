import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import {
  analyzeSnapshot,
  DATA_PLANE_NAMES,
  type DataPlaneName,
  describeCidr,
  endpointsForNode,
  generateFleetSnapshot,
  isDataPlaneName,
  isInputError,
  isMajorMinor,
  parseSnapshot,
  parseSnapshotJson,
  recommendFixes,
  type Snapshot,
  withRecommendations,
} from '@zw/core';
import { fixesAsText } from './fix-text.js';
import { displayName, InputError, MAX_INPUT_BYTES, readJsonInput } from './input.js';
import { writeJson, writeText } from './output.js';

/**
 * The `zonewise` command: the thinnest shell around the analysis core. JSON on stdout, one-line
 * messages on stderr; exit 0 on success, 2 on bad input, 1 on a bug (docs/cli.md is the reference).
 */

const EXIT_BAD_INPUT = 2;
const EXIT_BUG = 1;

export function buildProgram(): Command {
  const program = new Command('zonewise')
    .description('Kubernetes Topology Aware Routing analysis: hints, kube-proxy filtering, ClusterIP bands.')
    .version(version())
    .exitOverride()
    .configureOutput({ outputError: () => undefined })
    .showHelpAfterError(false);

  program
    .command('analyze')
    .description('what the EndpointSlice controller would do to every Service, and what it means for traffic')
    .argument(
      '<file>',
      'snapshot JSON (kubectl get nodes,services,endpointslices,servicecidrs -A -o json), or - for stdin',
    )
    .addOption(kubernetesVersionOption())
    .addOption(dataPlaneOption())
    .action(async (file: string, options: ClusterOptions) => {
      const snapshot = await readSnapshot(file);
      const report = analyzeSnapshot(snapshot, options);
      // Recommended fixes: `recommendations` per Service and the cluster's `nodeBlockers`. They take the
      // version and data-plane verdicts from the report itself (fixContextFromReport).
      await writeJson(withRecommendations(report, recommendFixes(snapshot, report)));
    });

  program
    .command('fix')
    .description('the fixes that make each Service route in-zone, best first, for a person to read and apply')
    .argument('<file>', 'snapshot JSON, or - for stdin')
    .option('--service <namespace/name>', 'only this Service', parseServiceKey)
    .option('--history <file>', 'ready endpoint counts seen per Service: {"namespace/name": [4, 6, 5], …}')
    .option('--json', 'print the fixes as JSON (the analyze shape: services[].recommendations, nodeBlockers)', false)
    .addOption(kubernetesVersionOption())
    .addOption(dataPlaneOption())
    .action(async (file: string, options: ClusterOptions & { service?: string; history?: string; json: boolean }) => {
      const snapshot = await readSnapshot(file);
      const history = options.history === undefined ? undefined : await readHistory(options.history);
      const report = analyzeSnapshot(snapshot, options);
      const only = options.service ?? null;
      if (only !== null && !report.services.some((entry) => `${entry.namespace}/${entry.name}` === only)) {
        throw new InputError(`--service: no Service ${only} in ${displayName(file)}`);
      }
      const fixes = recommendFixes(snapshot, report, { history });
      if (options.json) {
        const services = fixes.services.filter((entry) => only === null || `${entry.namespace}/${entry.name}` === only);
        await writeJson({ services, nodeBlockers: fixes.nodeBlockers });
        return;
      }
      await writeText(fixesAsText(report, fixes, only));
    });

  program
    .command('endpoints')
    .description('what kube-proxy on one node uses for each Service')
    .argument('<file>', 'snapshot JSON, or - for stdin')
    .requiredOption('--node <name>', 'the node kube-proxy runs on')
    .option('--computed', 'use the hints analyze computes instead of the hints in the snapshot', false)
    .addOption(kubernetesVersionOption())
    .addOption(dataPlaneOption())
    .action(async (file: string, options: { node: string; computed: boolean } & ClusterOptions) => {
      const snapshot = await readSnapshot(file);
      const { kubernetesVersion, dataPlane } = options;
      await writeJson(
        endpointsForNode(snapshot, options.node, { computedHints: options.computed, kubernetesVersion, dataPlane }),
      );
    });

  program
    .command('cidr')
    .description('how kube-apiserver splits a Service IP range into a static and a dynamic band')
    .argument('<cidr>', 'e.g. 10.96.0.0/16 or fd00::/108')
    .action(async (cidr: string) => {
      const { description, warnings } = describeCidr(cidr);
      for (const warning of warnings) process.stderr.write(`zonewise: warning: ${warning}\n`);
      await writeJson(description);
    });

  program
    .command('generate')
    .description('write a synthetic cluster snapshot of a given size (for benchmarks, tests and demos)')
    .addOption(countOption('--nodes <n>', 'nodes', 30))
    .addOption(countOption('--zones <n>', 'zones', 3))
    .addOption(countOption('--services <n>', 'Services', 20))
    .addOption(countOption('--endpoints-per-service <n>', 'endpoints per Service', 9))
    .option('--zone-cpu-weights <list>', 'relative allocatable CPU per zone, e.g. 1,1,2', parseWeights)
    .addOption(shareOption('--auto-share <fraction>', 'share of Services with topology-mode Auto', 0.5))
    .addOption(
      shareOption('--prefer-close-share <fraction>', 'share of the others with trafficDistribution PreferClose', 0.1),
    )
    .addOption(shareOption('--not-ready-share <fraction>', 'share of endpoints not ready', 0))
    .addOption(countOption('--seed <n>', 'random seed', 1))
    .action(async (options: GenerateOptions) => {
      await writeJson(
        generateFleetSnapshot({
          nodes: options.nodes,
          zones: options.zones,
          services: options.services,
          endpointsPerService: options.endpointsPerService,
          zoneCpuWeights: options.zoneCpuWeights,
          autoShare: options.autoShare,
          preferCloseShare: options.preferCloseShare,
          notReadyShare: options.notReadyShare,
          seed: options.seed,
        }),
      );
    });

  return program;
}

interface GenerateOptions {
  nodes: number;
  zones: number;
  services: number;
  endpointsPerService: number;
  zoneCpuWeights?: number[];
  autoShare: number;
  preferCloseShare: number;
  notReadyShare: number;
  seed: number;
}

interface ClusterOptions {
  kubernetesVersion?: string;
  dataPlane?: DataPlaneName;
}

function kubernetesVersionOption(): Option {
  return new Option(
    '--kubernetes-version <MAJOR.MINOR>',
    "the cluster's Kubernetes version (e.g. 1.31); else the snapshot's zonewise.io/kubernetes-version, else the newest modelled",
  ).argParser((value: string) => {
    if (!isMajorMinor(value) || !value.startsWith('1.')) {
      throw new InvalidArgumentError(`expected a Kubernetes version MAJOR.MINOR such as 1.31, got "${value}"`);
    }
    return value;
  });
}

function dataPlaneOption(): Option {
  return new Option(
    '--data-plane <name>',
    `what routes Service traffic (${DATA_PLANE_NAMES.join(', ')}); else the snapshot's zonewise.io/data-plane, else kube-proxy`,
  ).argParser((value: string) => {
    if (!isDataPlaneName(value)) {
      throw new InvalidArgumentError(`unknown data plane "${value}" (expected one of ${DATA_PLANE_NAMES.join(', ')})`);
    }
    return value;
  });
}

function parseServiceKey(value: string): string {
  if (!/^[^/\s]+\/[^/\s]+$/.test(value)) {
    throw new InvalidArgumentError(`expected namespace/name, got "${value}"`);
  }
  return value;
}

/** `{"namespace/name": [whole numbers ≥ 0], …}`; anything else is bad input. */
async function readHistory(file: string): Promise<Map<string, number[]>> {
  const json = await readJsonInput(file);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new InputError(`${displayName(file)}: expected an object of "namespace/name": [endpoint counts]`);
  }
  const history = new Map<string, number[]>();
  for (const [key, counts] of Object.entries(json)) {
    const valid = Array.isArray(counts) && counts.every((count) => Number.isSafeInteger(count) && count >= 0);
    if (!valid) {
      throw new InputError(`${displayName(file)}: ${JSON.stringify(key)}: expected an array of whole numbers ≥ 0`);
    }
    history.set(key, counts as number[]);
  }
  return history;
}

async function readSnapshot(file: string): Promise<Snapshot> {
  try {
    return parseSnapshot(await readJsonInput(file, MAX_INPUT_BYTES, parseSnapshotJson));
  } catch (error) {
    if (isInputError(error)) throw new InputError(`${displayName(file)}: ${(error as Error).message}`);
    throw error;
  }
}

function countOption(flags: string, what: string, defaultValue: number): Option {
  return new Option(flags, `number of ${what}`).default(defaultValue).argParser((value: string) => {
    const parsed = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(parsed)) {
      throw new InvalidArgumentError(`expected a whole number, got "${value}"`);
    }
    return parsed;
  });
}

function shareOption(flags: string, description: string, defaultValue: number): Option {
  return new Option(flags, description).default(defaultValue).argParser((value: string) => {
    const parsed = Number(value);
    if (value.trim() === '' || !(parsed >= 0 && parsed <= 1)) {
      throw new InvalidArgumentError(`expected a fraction between 0 and 1, got "${value}"`);
    }
    return parsed;
  });
}

function parseWeights(value: string): number[] {
  const weights = value.split(',').map((part) => Number(part.trim()));
  if (weights.some((weight) => !Number.isFinite(weight) || weight <= 0)) {
    throw new InvalidArgumentError(`expected positive numbers separated by commas, got "${value}"`);
  }
  return weights;
}

function version(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('../../../package.json') as { version: string }).version;
}

export async function run(argv: readonly string[]): Promise<number> {
  stopQuietlyOnClosedPipe();
  try {
    await buildProgram().parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    return reportFailure(error);
  }
}

/** The reader of our stdout went away (`zonewise fix snap.json | head`): not a failure of ours. */
function isClosedPipe(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === 'EPIPE';
}

function reportFailure(error: unknown): number {
  if (isClosedPipe(error)) return 0;
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.exitCode === 0) {
      return 0;
    }
    process.stderr.write(`zonewise: ${error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ')}\n`);
    return EXIT_BAD_INPUT;
  }
  if (error instanceof InputError || isInputError(error)) {
    process.stderr.write(`zonewise: ${(error as Error).message}\n`);
    return EXIT_BAD_INPUT;
  }
  process.stderr.write(`zonewise: internal error: ${(error as Error)?.stack ?? String(error)}\n`);
  return EXIT_BUG;
}

/**
 * Decision: when whoever reads our output stops reading (`| head`), stop quietly with exit 0, as the
 * output they wanted was written; a write's own EPIPE ends the command the same way (reportFailure).
 */
function stopQuietlyOnClosedPipe(): void {
  if (process.stdout.listeners('error').includes(onStdoutError)) return;
  process.stdout.on('error', onStdoutError);
}

function onStdoutError(error: Error): void {
  if (!isClosedPipe(error)) throw error;
  process.exit(0);
}

if (require.main === module) {
  void run(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
