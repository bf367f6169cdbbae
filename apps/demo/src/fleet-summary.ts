import type { Child } from './child-processes.js';

/** The parts of `GET /v1/fleet` the demo prints. */
export interface FleetAnswer {
  clusters: {
    name: string;
    cloud: string | null;
    region: string | null;
    services: { populated: number; removed: number; none: number };
    crossZone: { withoutHints: number; withHints: number } | null;
    nodeInfo: { sufficient: boolean | null };
    analysis: { capturedAt: string } | null;
  }[];
}

/** Polls the fleet through the API, as any consumer would, until every cluster has an analysed snapshot. */
export async function waitForFleet(
  apiUrl: string,
  apiKey: string,
  children: Child[],
  timeoutMs = 120_000,
): Promise<FleetAnswer> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    const dead = children.find((child) => child.process.exitCode !== null);
    if (dead) throw new Error(`${dead.name} exited while the demo was starting:\n${dead.lastLines()}`);
    const response = await fetch(`${apiUrl}/v1/fleet`, { headers: { authorization: `Bearer ${apiKey}` } });
    if (response.ok) {
      const fleet = (await response.json()) as FleetAnswer;
      if (fleet.clusters.length > 0 && fleet.clusters.every((cluster) => cluster.analysis !== null)) return fleet;
      last = `${fleet.clusters.filter((cluster) => cluster.analysis !== null).length} of ${fleet.clusters.length} clusters analysed`;
    } else {
      last = `GET /v1/fleet answered ${response.status}: ${await response.text()}`;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`the demo fleet was not analysed within ${timeoutMs / 1000} s (${last})`);
}

export function formatFleet(fleet: FleetAnswer): string {
  const header = ['cluster', 'cloud/region', 'populated', 'removed', 'none', 'cross-zone now', 'without hints'];
  const rows = fleet.clusters.map((cluster) => [
    cluster.name,
    `${cluster.cloud ?? '-'}/${cluster.region ?? '-'}`,
    String(cluster.services.populated),
    String(cluster.services.removed),
    String(cluster.services.none),
    percent(cluster.crossZone?.withHints),
    percent(cluster.crossZone?.withoutHints),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: string[]) =>
    `  ${cells.map((cell, column) => cell.padEnd(widths[column])).join('  ')}`.trimEnd();
  return ['Fleet (GET /v1/fleet):', line(header), ...rows.map(line)].join('\n');
}

function percent(fraction: number | undefined): string {
  return fraction === undefined ? '-' : `${(fraction * 100).toFixed(1)} %`;
}
