import {
  type ClusterMetricGroup,
  clusterMetricGroups,
  type ReadDb,
  servicesWithLostHints,
  type SnapshotPipelineFigures,
  snapshotPipelineFigures,
} from '@zw/db';
import { Gauge, type Registry } from 'prom-client';
import { clusterPricing } from '../cluster-pricing.js';

/**
 * Business figures on /metrics: clusters by staleness, Services by hint state, the monthly cross-zone
 * traffic and its cost, and the snapshot pipeline, summed over the whole deployment (no per-cluster or
 * per-organization series). Read from the read model at scrape time, at most once per `ttlMs` however many
 * scrapers ask (one read in flight at a time).
 */
export interface BusinessFigures {
  clusters: Record<ClusterMetricGroup['staleness'], number>;
  services: { populated: number; removed: number; none: number };
  servicesWithLostHints: number;
  /** Monthly cross-zone GB and USD, with the same meaning as the fleet summary's `monthly`. */
  monthly: Record<'without_hints' | 'with_hints' | 'missed_savings', { gb: number; cost: number }>;
  snapshots: { queued: number; processing: number; oldestPendingAgeSeconds: number; failedLast24h: number };
}

const SCENARIOS = ['without_hints', 'with_hints', 'missed_savings'] as const;

export function businessFigures(
  groups: readonly ClusterMetricGroup[],
  pipeline: SnapshotPipelineFigures,
  lostHints: number,
  now: Date,
): BusinessFigures {
  const figures: BusinessFigures = {
    clusters: { fresh: 0, stale: 0, never: 0 },
    services: { populated: 0, removed: 0, none: 0 },
    servicesWithLostHints: lostHints,
    monthly: {
      without_hints: { gb: 0, cost: 0 },
      with_hints: { gb: 0, cost: 0 },
      missed_savings: { gb: 0, cost: 0 },
    },
    snapshots: {
      queued: pipeline.queued,
      processing: pipeline.processing,
      oldestPendingAgeSeconds: pipeline.oldest_pending_received_at
        ? Math.max(0, (now.getTime() - pipeline.oldest_pending_received_at.getTime()) / 1000)
        : 0,
      failedLast24h: pipeline.failed_last_24h,
    },
  };
  for (const group of groups) {
    figures.clusters[group.staleness] += group.clusters;
    figures.services.populated += group.services_populated;
    figures.services.removed += group.services_removed;
    figures.services.none += group.services_none;
    const { pricePerGb } = clusterPricing({
      cloud: group.cloud as 'aws' | 'gcp' | 'azure' | 'other',
      region: group.region,
      crossZonePricePerGb: group.price_override,
      organizationPricePerGb: group.org_price_override,
    });
    const gb = {
      without_hints: group.cross_zone_gb_without_hints,
      with_hints: group.cross_zone_gb_with_hints,
      missed_savings: group.missed_gb,
    };
    for (const scenario of SCENARIOS) {
      figures.monthly[scenario].gb += gb[scenario];
      figures.monthly[scenario].cost += gb[scenario] * pricePerGb;
    }
  }
  return figures;
}

/**
 * Reads the figures: one read at a time, shared by every gauge of a scrape (prom-client collects them
 * concurrently) and by concurrent scrapes, and reused for `ttlMs` after it ends.
 */
export class BusinessFiguresSource {
  private inFlight: Promise<BusinessFigures> | null = null;
  private cached: { at: number; figures: BusinessFigures } | null = null;

  constructor(
    private readonly db: ReadDb,
    private readonly staleAfterSeconds: number,
    private readonly ttlMs: number,
  ) {}

  read(): Promise<BusinessFigures> {
    if (this.inFlight) return this.inFlight;
    const nowMs = Date.now();
    if (this.cached && nowMs - this.cached.at <= this.ttlMs) return Promise.resolve(this.cached.figures);
    // A failed read is not kept: the next scrape tries again.
    this.inFlight = this.load(new Date(nowMs))
      .then((figures) => {
        this.cached = { at: nowMs, figures };
        return figures;
      })
      .finally(() => {
        this.inFlight = null;
      });
    return this.inFlight;
  }

  private async load(now: Date): Promise<BusinessFigures> {
    const [groups, pipeline, lost] = await Promise.all([
      clusterMetricGroups(this.db, now, this.staleAfterSeconds),
      snapshotPipelineFigures(this.db, now),
      servicesWithLostHints(this.db),
    ]);
    return businessFigures(groups, pipeline, lost, now);
  }
}

/**
 * Registers the gauges. When the read model cannot be read, they carry no samples and
 * zonewise_business_metrics_up is 0 (the rest of /metrics still answers).
 */
export function registerBusinessMetrics(registry: Registry, source: BusinessFiguresSource): void {
  const figures = () => source.read().catch(() => null);
  const gauge = (name: string, help: string, labelNames: string[], set: (g: Gauge, f: BusinessFigures) => void) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        const current = await figures();
        this.reset();
        if (current) set(this, current);
      },
    });
  new Gauge({
    name: 'zonewise_business_metrics_up',
    help: '1 when the business figures below could be read from the database at this scrape, else 0.',
    registers: [registry],
    async collect() {
      this.set((await figures()) ? 1 : 0);
    },
  });
  gauge(
    'zonewise_clusters',
    'Registered clusters by agent freshness: fresh, stale (newest snapshot older than STALE_AFTER_SECONDS) or never (no snapshot yet).',
    ['staleness'],
    (g, f) => {
      for (const [staleness, count] of Object.entries(f.clusters)) g.set({ staleness }, count);
    },
  );
  gauge(
    'zonewise_services',
    "Services by hint state (populated, removed, none) in each cluster's newest analysed snapshot.",
    ['hint_state'],
    (g, f) => {
      for (const [state, count] of Object.entries(f.services)) g.set({ hint_state: state }, count);
    },
  );
  gauge(
    'zonewise_services_hints_lost',
    'Services whose hints are removed right after a period of populated hints (a regression not yet recovered).',
    [],
    (g, f) => g.set(f.servicesWithLostHints),
  );
  gauge(
    'zonewise_cross_zone_monthly_gigabytes',
    'Estimated cross-zone GB per month over every cluster: without_hints, with_hints (as routed now), missed_savings.',
    ['scenario'],
    (g, f) => {
      for (const scenario of SCENARIOS) g.set({ scenario }, f.monthly[scenario].gb);
    },
  );
  gauge(
    'zonewise_cross_zone_monthly_cost_usd',
    'The same GB priced at each cluster’s cross-zone price, in USD per month.',
    ['scenario'],
    (g, f) => {
      for (const scenario of SCENARIOS) g.set({ scenario }, f.monthly[scenario].cost);
    },
  );
  gauge(
    'zonewise_snapshots_pending',
    'Snapshots received and not yet recorded: queued (waiting for a worker) or processing.',
    ['status'],
    (g, f) => {
      g.set({ status: 'queued' }, f.snapshots.queued);
      g.set({ status: 'processing' }, f.snapshots.processing);
    },
  );
  gauge(
    'zonewise_snapshots_oldest_pending_age_seconds',
    'Age of the oldest snapshot not yet recorded (0 when none waits).',
    [],
    (g, f) => g.set(f.snapshots.oldestPendingAgeSeconds),
  );
  gauge(
    'zonewise_snapshots_failed_24h',
    'Snapshots whose processing failed for good (no retry left) in the last 24 hours.',
    [],
    (g, f) => g.set(f.snapshots.failedLast24h),
  );
}
