import type { Logger } from 'pino';
import { Backoff, sleep } from '../backoff.js';
import { deliver, PushClient } from '../push-client.js';
import { buildSnapshot, type BuiltSnapshot, gzipSnapshot } from '../snapshot.js';
import { clusterProfile, profileAnnotations } from '../cluster-profile.js';
import { renderCluster, renderNodes } from './cluster-model.js';
import { simulatedReadings } from './cluster-platform.js';
import type { ClusterScenario } from './fleet.js';

/**
 * Plays clusters through the ingest path a real agent uses: each tick, every cluster's state is
 * rendered to Kubernetes objects, compacted and annotated into a snapshot exactly as the agent builds
 * one, gzipped, and pushed with the agent's push client (Bearer token, retries with backoff and jitter).
 */

export interface SimulationOptions {
  apiUrl: string;
  /** Agent token per cluster name; clusters without one are not played. */
  tokens: ReadonlyMap<string, string>;
  clusters: readonly ClusterScenario[];
  seed: number;
  /** Ticks to play; null plays until the signal aborts. */
  ticks: number | null;
  /** Wall-clock pause between ticks. */
  intervalMs: number;
  /**
   * Simulated time: tick i is captured at `start + i·stepMs` instead of now (to fill a history quickly).
   */
  clock?: { startMs: number; stepMs: number };
  logger: Logger;
  signal?: AbortSignal;
  pushTimeoutMs?: number;
  retry?: { initialMs: number; maxMs: number };
  userAgent?: string;
}

export interface SimulationResult {
  ticks: number;
  accepted: number;
  rejected: number;
}

/** The snapshot a cluster gives at a tick: a pure function of scenario, seed and tick (and the time stamp). */
export function simulatedSnapshot(
  scenario: ClusterScenario,
  seed: number,
  tick: number,
  capturedAt: Date,
): BuiltSnapshot {
  const state = scenario.state(tick, seed);
  const previous = scenario.lagsHints && tick > 0 ? scenario.state(tick - 1, seed) : undefined;
  // What the agent's own detection makes of the scenario's version and data plane. (The simulated
  // Services have no selectors, so no namespace counts for a mesh: none is simulated.)
  const clusterAnnotations = profileAnnotations(
    clusterProfile(simulatedReadings(scenario.kubernetesVersion, scenario.dataPlane), renderNodes(state), []),
  );
  const { objects, serviceCidrs } = renderCluster(state, previous, clusterAnnotations);
  return buildSnapshot(objects, capturedAt, serviceCidrs, clusterAnnotations);
}

export async function runSimulation(options: SimulationOptions): Promise<SimulationResult> {
  const playing = options.clusters.filter((cluster) => options.tokens.has(cluster.name));
  const lastCapturedAt = new Map<string, number>();
  const result: SimulationResult = { ticks: 0, accepted: 0, rejected: 0 };
  const players = playing.map((cluster) => ({
    cluster,
    client: new PushClient({
      apiUrl: options.apiUrl,
      token: { value: options.tokens.get(cluster.name)! },
      cluster: cluster.name,
      timeoutMs: options.pushTimeoutMs ?? 30_000,
      userAgent: options.userAgent ?? 'zonewise-simulate',
    }),
    backoff: new Backoff({ initialMs: options.retry?.initialMs ?? 500, maxMs: options.retry?.maxMs ?? 30_000 }),
  }));
  options.logger.info(
    { clusters: playing.map((cluster) => cluster.name), seed: options.seed, ticks: options.ticks },
    'simulation started',
  );

  for (let tick = 0; options.ticks === null || tick < options.ticks; tick++) {
    if (options.signal?.aborted) break;
    const tickStarted = Date.now();
    await Promise.all(
      players.map(async ({ cluster, client, backoff }) => {
        const wanted = options.clock ? options.clock.startMs + tick * options.clock.stepMs : Date.now();
        const capturedAt = new Date(Math.max(wanted, (lastCapturedAt.get(cluster.name) ?? 0) + 1));
        lastCapturedAt.set(cluster.name, capturedAt.getTime());
        const snapshot = simulatedSnapshot(cluster, options.seed, tick, capturedAt);
        const outcome = await deliver(client, await gzipSnapshot(snapshot.json), {
          backoff,
          signal: options.signal,
          onRetry: (failed, delayMs) =>
            options.logger.warn(
              { cluster: cluster.name, tick, reason: failed.reason, retryInMs: delayMs },
              'push failed; will retry',
            ),
        });
        if (outcome.kind === 'accepted') {
          result.accepted++;
          options.logger.info(
            {
              cluster: cluster.name,
              tick,
              capturedAt: capturedAt.toISOString(),
              snapshotId: outcome.snapshotId,
              objects: snapshot.objectCount,
            },
            'snapshot accepted',
          );
        } else if (outcome.kind === 'rejected') {
          result.rejected++;
          options.logger.error(
            { cluster: cluster.name, tick, status: outcome.status, reason: outcome.reason },
            'snapshot rejected',
          );
        }
      }),
    );
    if (options.signal?.aborted) break;
    result.ticks = tick + 1;
    const last = options.ticks !== null && tick + 1 >= options.ticks;
    if (!last) await sleep(Math.max(0, options.intervalMs - (Date.now() - tickStarted)), options.signal);
  }
  options.logger.info(result, 'simulation finished');
  return result;
}
