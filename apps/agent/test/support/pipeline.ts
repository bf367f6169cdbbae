import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type PrismaClient, summaryZones, withIntervalZones } from '@zw/db';

/** Helpers for the tests that run the agent against the real API, worker, Postgres and Redis. */

export const ROOT = join(__dirname, '..', '..', '..', '..');

/** Compiles what the child-process tests run: the CLI (`zonewise analyze`) and the agent. */
export function buildAgentAndCli(): void {
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'apps/cli', 'apps/agent'],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
}

/** What `zonewise analyze` (the compiled CLI, as a user runs it) says about these objects. */
export function zonewiseAnalyze(items: unknown[], listAnnotations: Record<string, string> = {}): AnalyzeOutput {
  const dir = mkdtempSync(join(tmpdir(), 'zw-agent-analyze-'));
  const file = join(dir, 'snapshot.json');
  writeFileSync(
    file,
    JSON.stringify({ apiVersion: 'v1', kind: 'List', metadata: { annotations: listAnnotations }, items }),
  );
  const stdout = execFileSync(process.execPath, [join(ROOT, 'bin', 'zonewise.js'), 'analyze', file], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  return JSON.parse(stdout) as AnalyzeOutput;
}

export interface AnalyzeOutput {
  nodeInfo: { sufficient: boolean; reason: string | null; zones: unknown[] };
  summary: {
    services: { populated: number; removed: number; none: number };
    servicesWithDrift: number;
    crossZone: { withoutHints: number; withHints: number };
  };
  services: {
    namespace: string;
    name: string;
    routing: string;
    hints: { state: string; reason: string | null };
    zones: Record<string, unknown>;
    crossZone: { withoutHints: number | null; withHints: number | null };
  }[];
}

/** The stored history of a cluster at its newest snapshot, in the shape the CLI reports it. */
export async function storedAnalysis(prisma: PrismaClient, clusterId: string) {
  const latest = await prisma.snapshotSummary.findFirst({ where: { clusterId }, orderBy: { capturedAt: 'desc' } });
  if (!latest) return null;
  const intervals = await withIntervalZones(
    prisma,
    await prisma.serviceInterval.findMany({
      where: { clusterId, validTo: null },
      include: { service: { select: { namespace: true, name: true } } },
    }),
  );
  return {
    capturedAt: latest.capturedAt,
    summary: {
      services: latest.services,
      populated: latest.servicesPopulated,
      removed: latest.servicesRemoved,
      none: latest.servicesNone,
      servicesWithDrift: latest.servicesWithDrift,
      nodeInfo: {
        sufficient: latest.nodeInfoSufficient,
        reason: latest.nodeInfoReason,
        zones: await summaryZones(prisma, latest),
      },
      crossZone: { withoutHints: latest.crossZoneWithoutHints, withHints: latest.crossZoneWithHints },
    },
    services: intervals
      .map((interval) => ({
        namespace: interval.service.namespace,
        name: interval.service.name,
        routing: interval.routing as string,
        hints: { state: interval.hintState as string, reason: interval.hintReason },
        zones: interval.zones,
        crossZone: { withoutHints: interval.crossZoneWithoutHints, withHints: interval.crossZoneWithHints },
      }))
      .sort(byServiceName),
  };
}

/** The CLI's answer in the same shape as {@link storedAnalysis}. */
export function expectedAnalysis(output: AnalyzeOutput) {
  return {
    summary: {
      services: output.services.length,
      populated: output.summary.services.populated,
      removed: output.summary.services.removed,
      none: output.summary.services.none,
      servicesWithDrift: output.summary.servicesWithDrift,
      nodeInfo: {
        sufficient: output.nodeInfo.sufficient,
        reason: output.nodeInfo.reason,
        zones: output.nodeInfo.zones,
      },
      crossZone: output.summary.crossZone,
    },
    services: output.services
      .map((service) => ({
        namespace: service.namespace,
        name: service.name,
        routing: service.routing,
        hints: { state: service.hints.state, reason: service.hints.reason },
        zones: service.zones,
        crossZone: service.crossZone,
      }))
      .sort(byServiceName),
  };
}

function byServiceName(a: { namespace: string; name: string }, b: { namespace: string; name: string }): number {
  const left = `${a.namespace}/${a.name}`;
  const right = `${b.namespace}/${b.name}`;
  return left < right ? -1 : left > right ? 1 : 0;
}

/** A TCP port nothing listens on (yet). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
