/**
 * The savings model over a whole analysed snapshot: each Service's traffic, cost without and with its
 * hints, the opportunity of Services without topology routing, and the cluster's totals. This is what
 * the query API stores and serves per snapshot; the formulas are `savings`'.
 */
import type { AnalysisReport, ServiceAnalysis } from './analyze.js';
import { serviceKey } from './analyze.js';
import type { HintState } from './endpointslice-controller.js';
import type { Service } from './k8s-objects.js';
import type { AutoRoutingPreview } from './opportunity.js';
import { type Opportunity, rankOpportunities } from './opportunity-ranking.js';
import { autoRoutingPreviews } from './routing-previews.js';
import type { Routing } from './routing-mode.js';
import type { CrossZonePrice } from './savings.js';
import { type MonthlyTraffic, monthlyTrafficGb } from './monthly-traffic.js';
import {
  type CrossZoneCost,
  type MissedSavings,
  missedSavings,
  type ServiceCost,
  serviceCost,
} from './service-cost.js';
import type { Snapshot } from './snapshot-model.js';

export interface ServiceSavings {
  namespace: string;
  name: string;
  routing: Routing;
  hintState: HintState;
  traffic: MonthlyTraffic;
  cost: ServiceCost;
  /** For a Service without topology routing: what `topology-mode: Auto` would give; else null. */
  preview: AutoRoutingPreview | null;
  /** For a Service without topology routing: what enabling it would save; else null. */
  missed: MissedSavings | null;
}

export interface SavingsTotals {
  services: number;
  /** Services whose traffic is zonewise's per-endpoint default. */
  servicesWithEstimatedTraffic: number;
  trafficGb: number;
  withoutHints: CrossZoneCost;
  withHints: CrossZoneCost;
  realizedSavings: CrossZoneCost;
  /** Sum over the opportunities (Services without routing whose hints would be populated). */
  missedSavings: CrossZoneCost;
  /** true when any figure rests on an estimated traffic volume or the unknown-cloud price. */
  estimate: boolean;
}

export interface SnapshotSavings {
  price: CrossZonePrice;
  services: ServiceSavings[];
  totals: SavingsTotals;
  /** {@link rankOpportunities} over the snapshot's Services. */
  opportunities: Opportunity[];
}

export interface SnapshotSavingsInput {
  snapshot: Snapshot;
  /** `analyzeSnapshot(snapshot)`. */
  report: AnalysisReport;
  price: CrossZonePrice;
  /** GB per month set through the API, by `namespace/name`. */
  explicitTrafficGb?: ReadonlyMap<string, number> | Readonly<Record<string, number>>;
}

export function snapshotSavings({ snapshot, report, price, explicitTrafficGb }: SnapshotSavingsInput): SnapshotSavings {
  const servicesByKey = new Map(snapshot.services.map((service) => [serviceKey(service), service]));
  const previews = new Map(
    autoRoutingPreviews(snapshot, report).map((entry) => [`${entry.namespace}/${entry.name}`, entry.preview]),
  );
  const services = report.services.map((analysis) => {
    const key = `${analysis.namespace}/${analysis.name}`;
    return serviceSavings(
      analysis,
      servicesByKey.get(key),
      explicitOf(explicitTrafficGb, key),
      previews.get(key),
      price,
    );
  });
  const opportunities = rankOpportunities(
    services.flatMap((entry) =>
      entry.preview === null
        ? []
        : [
            {
              namespace: entry.namespace,
              name: entry.name,
              routing: entry.routing,
              traffic: entry.traffic,
              crossZone: entry.cost.crossZone,
              preview: entry.preview,
            },
          ],
    ),
    price,
  );
  return { price, services, totals: totalsOf(services, opportunities, price), opportunities };
}

function serviceSavings(
  analysis: ServiceAnalysis,
  service: Service | undefined,
  explicitGb: number | undefined,
  preview: AutoRoutingPreview | undefined,
  price: CrossZonePrice,
): ServiceSavings {
  const traffic = monthlyTrafficGb({
    explicitGb,
    annotations: service?.metadata.annotations,
    readyEndpoints: analysis.readyEndpoints,
  });
  const cost = serviceCost({ trafficGb: traffic, crossZone: analysis.crossZone, pricePerGb: price });
  return {
    namespace: analysis.namespace,
    name: analysis.name,
    routing: analysis.routing,
    hintState: analysis.hints.state,
    traffic,
    cost,
    preview: preview ?? null,
    missed:
      preview === undefined
        ? null
        : missedSavings({ trafficGb: traffic, pricePerGb: price, current: analysis.crossZone, ifEnabled: preview }),
  };
}

function explicitOf(
  explicit: ReadonlyMap<string, number> | Readonly<Record<string, number>> | undefined,
  key: string,
): number | undefined {
  if (explicit === undefined) return undefined;
  if (explicit instanceof Map) return explicit.get(key);
  const record = explicit as Readonly<Record<string, number>>;
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

function totalsOf(
  services: readonly ServiceSavings[],
  opportunities: readonly Opportunity[],
  price: CrossZonePrice,
): SavingsTotals {
  const sum = (pick: (entry: ServiceSavings) => CrossZoneCost) => addCosts(services.map(pick));
  const servicesWithEstimatedTraffic = services.filter((entry) => entry.traffic.estimate).length;
  return {
    services: services.length,
    servicesWithEstimatedTraffic,
    trafficGb: services.reduce((total, entry) => total + entry.traffic.gb, 0),
    withoutHints: sum((entry) => entry.cost.withoutHints),
    withHints: sum((entry) => entry.cost.withHints),
    realizedSavings: sum((entry) => entry.cost.realizedSavings),
    missedSavings: addCosts(opportunities.map((opportunity) => opportunity.missed.savings)),
    estimate: servicesWithEstimatedTraffic > 0 || price.source === 'unknown-cloud-default',
  };
}

function addCosts(costs: readonly CrossZoneCost[]): CrossZoneCost {
  let crossZoneGb = 0;
  let cost = 0;
  for (const entry of costs) {
    crossZoneGb += entry.crossZoneGb;
    cost += entry.cost;
  }
  return { crossZoneGb, cost };
}
