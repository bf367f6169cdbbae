import { Field, Float, ID, Int, ObjectType, registerEnumType } from '@nestjs/graphql';

/**
 * The GraphQL read model's shared entities (code-first): the fleet, its clusters and their Services, and
 * the figures they carry. Several features extend these types with fields of their own (recommendations,
 * simulations, savings, timelines), so they live here; each feature keeps its own answer types beside
 * its resolver (fleet/cluster-fields.models.ts, services/timeline.models.ts, savings/, trends/).
 */

export enum RoutingMode {
  Auto = 'Auto',
  PreferClose = 'PreferClose',
  PreferSameZone = 'PreferSameZone',
  PreferSameNode = 'PreferSameNode',
  None = 'None',
}
export enum HintState {
  populated = 'populated',
  removed = 'removed',
  none = 'none',
}
registerEnumType(RoutingMode, { name: 'RoutingMode' });
registerEnumType(HintState, { name: 'HintState', description: 'the `hints.state` of `zonewise analyze`' });

@ObjectType()
export class CrossZoneCost {
  @Field(() => Float) crossZoneGb: number;
  @Field(() => Float, { description: 'USD' }) cost: number;
}

@ObjectType()
export class CrossZoneFractions {
  @Field(() => Float) withoutHints: number;
  @Field(() => Float) withHints: number;
}

/** A month's (or a range's) traffic, what crosses zones with and without hints, and what that saves. */
@ObjectType({ isAbstract: true })
export class CrossZoneCostFigures {
  @Field(() => Float) trafficGb: number;
  @Field(() => CrossZoneCost) withoutHints: CrossZoneCost;
  @Field(() => CrossZoneCost) withHints: CrossZoneCost;
  @Field(() => CrossZoneCost) realizedSavings: CrossZoneCost;
  @Field(() => CrossZoneCost) missedSavings: CrossZoneCost;
}

@ObjectType({ description: "whether the hints change where requests go on the cluster's data path" })
export class DataPath {
  @Field() honoursHints: boolean;
  @Field(() => String, { nullable: true, description: 'why the hints change nothing here' }) reason: string | null;
}

@ObjectType({ description: 'the inputs a figure came from' })
export class CostInputs {
  @Field(() => Float) trafficGb: number;
  @Field({ description: '`api`, `measured`, `annotation` or `default-per-endpoint`' }) trafficSource: string;
  @Field() trafficEstimate: boolean;
  @Field(() => String, { nullable: true }) trafficNote: string | null;
  @Field(() => Float) pricePerGb: number;
  @Field() currency: string;
  @Field() priceSource: string;
  @Field(() => String, { nullable: true }) priceNote: string | null;
  @Field() estimate: boolean;
  @Field({ description: "where today's cross-zone share came from: `measured` or `model`" }) crossZoneSource: string;
  @Field(() => Float, { description: "the model's share crossing zones as routed today" }) modelCrossZone: number;
  @Field(() => Float, { nullable: true, description: 'the measured share of the bytes that crossed zones' })
  measuredCrossZone: number | null;
}

@ObjectType({ description: 'hints populated, yet the measured share crossing zones is > 10 points above the model' })
export class MeasuredContradiction {
  @Field(() => Float) modelCrossZone: number;
  @Field(() => Float) measuredCrossZone: number;
  @Field() reason: string;
}

@ObjectType()
export class ServiceMonthly {
  @Field(() => CrossZoneCost) withoutHints: CrossZoneCost;
  @Field(() => CrossZoneCost) withHints: CrossZoneCost;
  @Field(() => CrossZoneCost) realizedSavings: CrossZoneCost;
  @Field(() => CrossZoneCost, { nullable: true }) missedSavings: CrossZoneCost | null;
  @Field(() => CostInputs) inputs: CostInputs;
}

@ObjectType()
export class ZoneAllocation {
  @Field() zone: string;
  @Field(() => Float, { nullable: true }) minimum: number | null;
  @Field(() => Float, { nullable: true }) maximum: number | null;
  @Field(() => Float, { nullable: true }) desired: number | null;
  @Field(() => Int, { nullable: true }) allocated: number | null;
  @Field(() => Float) expectedOverload: number;
}

@ObjectType()
export class MeasurementSource {
  @Field() preset: string;
  @Field(() => String, { nullable: true }) query: string | null;
  @Field(() => Int) windowSeconds: number;
}

@ObjectType({ description: "the newest measurement of the cluster's traffic source for a Service" })
export class MeasuredTraffic {
  @Field(() => Float, { description: 'GB per month' }) trafficGb: number;
  @Field(() => Float, { nullable: true, description: 'measured share crossing zones; null without zone labels' })
  crossZone: number | null;
  @Field() measuredAt: string;
  @Field(() => Int) ageSeconds: number;
  @Field(() => MeasurementSource) source: MeasurementSource;
}

@ObjectType({ description: "the model's side: volume, cross-zone fraction and monthly cost" })
export class EstimatedTraffic {
  @Field(() => Float, { description: 'GB per month' }) trafficGb: number;
  @Field(() => Float) crossZone: number;
  @Field(() => Float, { description: 'USD per month' }) cost: number;
}

@ObjectType({ description: 'a measured side (or estimated − measured): null where nothing is measured' })
export class MeasuredTrafficFigures {
  @Field(() => Float, { nullable: true }) trafficGb: number | null;
  @Field(() => Float, { nullable: true }) crossZone: number | null;
  @Field(() => Float, { nullable: true }) cost: number | null;
}

@ObjectType()
export class ModelVsMeasured {
  @Field(() => EstimatedTraffic) estimated: EstimatedTraffic;
  @Field(() => MeasuredTrafficFigures) measured: MeasuredTrafficFigures;
  @Field(() => MeasuredTrafficFigures, { description: 'estimated − measured' }) error: MeasuredTrafficFigures;
}

@ObjectType()
export class Service {
  /** Internal: the cluster_services id, for the timeline loader. */
  serviceId: string;
  @Field() namespace: string;
  @Field() name: string;
  @Field(() => RoutingMode) routing: RoutingMode;
  @Field(() => HintState) hintState: HintState;
  @Field(() => String, { nullable: true }) hintReason: string | null;
  @Field(() => Int) readyEndpoints: number;
  @Field({ description: 'since when this state holds' }) since: string;
  @Field(() => CrossZoneFractions) crossZone: CrossZoneFractions;
  @Field(() => String, {
    nullable: true,
    description:
      "who writes the Service's slices: endpointslice-controller, kube-apiserver, none, or a managed-by value",
  })
  managedBy: string | null;
  @Field(() => DataPath, { nullable: true }) dataPath: DataPath | null;
  @Field(() => ServiceMonthly) monthly: ServiceMonthly;
  @Field({ description: 'no routing today, and enabling it would populate hints' }) opportunity: boolean;
  @Field(() => [ZoneAllocation]) zones: ZoneAllocation[];
  @Field(() => MeasuredTraffic, { nullable: true }) measured: MeasuredTraffic | null;
  @Field(() => ModelVsMeasured, { nullable: true }) modelVsMeasured: ModelVsMeasured | null;
  @Field(() => MeasuredContradiction, { nullable: true }) contradiction: MeasuredContradiction | null;
}

@ObjectType()
export class HintStateCounts {
  @Field(() => Int) populated: number;
  @Field(() => Int) removed: number;
  @Field(() => Int) none: number;
}

@ObjectType()
export class LastSnapshot {
  @Field() capturedAt: string;
  @Field() receivedAt: string;
  @Field() status: string;
  @Field(() => Int) ageSeconds: number;
  @Field() stale: boolean;
}

@ObjectType()
export class Pricing {
  @Field(() => Float) pricePerGb: number;
  @Field({ description: 'the currency of the price and of every cost priced with it' }) currency: string;
  @Field() source: string;
  @Field() note: string;
}

@ObjectType({
  description:
    'cross-zone GB and USD a month that Services with refused hints still send across zones: the most that removing the cause could save (an upper bound)',
})
export class AtStakeFigures {
  @Field(() => Float) crossZoneGb: number;
  @Field(() => Float, { description: 'USD' }) cost: number;
  @Field(() => Int, { description: 'Services that ask for topology routing whose hints the controller refused' })
  services: number;
  @Field(() => Float) trafficGb: number;
  @Field(() => Int) servicesWithEstimatedTraffic: number;
  @Field() estimate: boolean;
}

@ObjectType()
export class MonthlyFigures extends CrossZoneCostFigures {
  @Field(() => AtStakeFigures, { nullable: true, description: 'null while the newest summary predates it' })
  atStake: AtStakeFigures | null;
  @Field(() => Int) opportunities: number;
  @Field(() => Int) servicesWithEstimatedTraffic: number;
  @Field(() => Int) servicesWithMeasuredTraffic: number;
  @Field(() => Float) measuredTrafficGb: number;
  @Field(() => Float, { nullable: true, description: 'measuredTrafficGb ÷ trafficGb' }) measuredShare: number | null;
  @Field(() => Pricing) pricing: Pricing;
  @Field() estimate: boolean;
}

@ObjectType({ description: "a cluster's Prometheus traffic source and how its last measurement went" })
export class TrafficSourceStatus {
  @Field() preset: string;
  @Field() status: string;
  @Field(() => String, { nullable: true }) lastError: string | null;
  @Field(() => String, { nullable: true }) lastSuccessAt: string | null;
}

@ObjectType({
  description: 'the Kubernetes version and data plane the newest recorded analysis used, and where each came from',
})
export class AnalysisSettings {
  @Field({ description: 'captured-at of the snapshot' }) asOf: string;
  @Field(() => String, { nullable: true, description: 'MAJOR.MINOR the analysis modelled' })
  kubernetesVersion: string | null;
  @Field({ description: 'override (set through the API), snapshot (reported by the agent) or default' })
  kubernetesVersionSource: string;
  @Field(() => String, { nullable: true }) dataPlane: string | null;
  @Field({ description: 'override, snapshot or default' }) dataPlaneSource: string;
}

@ObjectType()
export class Cluster {
  @Field(() => ID) id: string;
  @Field() name: string;
  @Field() cloud: string;
  @Field(() => String, { nullable: true }) region: string | null;
  @Field(() => String, {
    nullable: true,
    description: "override of the Kubernetes version (MAJOR.MINOR); null: the agent's report is used",
  })
  kubernetesVersion: string | null;
  @Field(() => String, { nullable: true, description: "override of the data plane; null: the agent's detection" })
  dataPlane: string | null;
  @Field(() => AnalysisSettings, { nullable: true }) analysisSettings: AnalysisSettings | null;
  @Field(() => HintStateCounts, { description: 'Services by hint state' }) hintStates: HintStateCounts;
  @Field(() => Int, { nullable: true }) servicesWithDrift: number | null;
  @Field(() => Int, {
    nullable: true,
    description: 'Services whose slices carry hints that the data path ignores (hints written but ignored)',
  })
  servicesWithIgnoredHints: number | null;
  @Field(() => Boolean, { nullable: true }) nodeInfoSufficient: boolean | null;
  @Field(() => String, { nullable: true }) nodeInfoReason: string | null;
  @Field(() => CrossZoneFractions, { nullable: true }) crossZone: CrossZoneFractions | null;
  @Field(() => LastSnapshot, { nullable: true }) lastSnapshot: LastSnapshot | null;
  @Field(() => MonthlyFigures, { nullable: true }) monthly: MonthlyFigures | null;
  @Field(() => TrafficSourceStatus, { nullable: true }) trafficSource: TrafficSourceStatus | null;
  @Field(() => String, { nullable: true, description: 'captured-at of the newest processed snapshot' })
  asOf: string | null;
  /** Internal: pricing inputs for the savings loader. */
  pricePerGb: number;
}

@ObjectType()
export class Fleet {
  @Field() generatedAt: string;
  @Field({ description: 'the currency of every cost in the fleet' }) currency: string;
  @Field(() => [Cluster]) clusters: Cluster[];
}
