import { Inject, Injectable, Logger } from '@nestjs/common';
import { isAgentStale, type NewestCapture, newestCaptures, PrismaService } from '@zw/db';
import type { WorkerConfig } from './config.js';
import { type LIVE_EVENT_GUARDS, ReadModelPublisher } from './read-model-events.js';
import { WORKER_CONFIG } from './worker-config.token.js';

/** The guard hash (`<QUEUE_PREFIX>:{events}:zw-stale-clusters`): one field per cluster announced stale. */
const STALE_GUARD: (typeof LIVE_EVENT_GUARDS)[number] = 'zw-stale-clusters';

export interface StalenessResult {
  wentStale: number;
  cameBack: number;
}

/**
 * Announces when a cluster's agent stops pushing, as a live event (`cluster.stale`), and when it pushes
 * again (`cluster.fresh`): it runs with the sweeper, which runs when no snapshot arrives. A cluster is
 * stale when its newest snapshot (whatever its status) was captured more than STALE_AFTER_SECONDS ago,
 * as the API's fleet view says. Each crossing is announced once: the guard hash in Redis records which
 * clusters were announced stale, flipped atomically with the event, so several workers and restarts
 * do not repeat it. A cluster without any snapshot has never been fresh, and is not announced.
 */
@Injectable()
export class AgentStalenessService {
  private readonly logger = new Logger('AgentStaleness');

  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(ReadModelPublisher) private readonly events: ReadModelPublisher,
    @Inject(WORKER_CONFIG) private readonly config: WorkerConfig,
  ) {}

  async announce(now = new Date()): Promise<StalenessResult> {
    const result: StalenessResult = { wentStale: 0, cameBack: 0 };
    try {
      const clusters = await newestCaptures(this.prisma);
      const announced = new Set(await this.events.transitionFields(STALE_GUARD));
      for (const cluster of clusters) {
        const stale = isAgentStale(cluster.capturedAt, now, this.config.STALE_AFTER_SECONDS);
        if (stale === announced.has(cluster.clusterId)) continue;
        if (await this.announceOne(cluster, stale)) result[stale ? 'wentStale' : 'cameBack']++;
      }
      const present = new Set(clusters.map((cluster) => cluster.clusterId));
      await this.events.forgetTransitions(
        STALE_GUARD,
        [...announced].filter((id) => !present.has(id)),
      );
    } catch (error) {
      this.logger.warn(`staleness check failed (next sweep retries): ${String(error)}`);
    }
    return result;
  }

  private announceOne(cluster: NewestCapture, stale: boolean): Promise<boolean> {
    return this.events.liveEventOnTransition(
      STALE_GUARD,
      cluster.clusterId,
      stale,
      stale ? 'cluster.stale' : 'cluster.fresh',
      {
        clusterId: cluster.clusterId,
        organizationId: cluster.organizationId,
        lastSnapshotCapturedAt: cluster.capturedAt.toISOString(),
        staleAfterSeconds: this.config.STALE_AFTER_SECONDS,
      },
    );
  }
}
