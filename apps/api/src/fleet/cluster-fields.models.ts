import { Field, Float, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { Service } from '../graphql-models/models.js';

/** The cluster type's fields resolved by the fleet feature: its Services page, zones, Service CIDRs, measured traffic. */

export enum ServiceSort {
  name = 'name',
  cost = 'cost',
  savings = 'savings',
}
registerEnumType(ServiceSort, { name: 'ServiceSort' });

@ObjectType()
export class ServiceConnection {
  @Field(() => String, { nullable: true }) asOf: string | null;
  @Field(() => [Service]) nodes: Service[];
  @Field(() => String, { nullable: true }) nextCursor: string | null;
}

@ObjectType()
export class ExpectedOverload {
  @Field(() => Float) max: number;
  @Field(() => String, { nullable: true }) maxService: string | null;
  @Field(() => Float, { nullable: true }) mean: number | null;
  @Field(() => Int) servicesAboveThreshold: number;
}

@ObjectType()
export class Zone {
  @Field() name: string;
  @Field(() => Float, { nullable: true }) cpuShare: number | null;
  @Field(() => Float, { nullable: true }) allocatableCpuMillis: number | null;
  @Field(() => Int, { nullable: true }) readyNodes: number | null;
  @Field(() => Float, { nullable: true }) trafficShare: number | null;
  @Field(() => Int) readyEndpoints: number;
  @Field(() => Int) hintedEndpoints: number;
  @Field(() => ExpectedOverload) expectedOverload: ExpectedOverload;
}

@ObjectType()
export class AddressBand {
  @Field() first: string;
  @Field() last: string;
}

@ObjectType()
export class BandCounts {
  @Field(() => Float) static: number;
  @Field(() => Float) dynamic: number;
  @Field(() => Float) total: number;
}

@ObjectType()
export class ClusterIpRisk {
  @Field() kind: string;
  @Field() ip: string;
  @Field(() => String, { nullable: true }) service: string | null;
  @Field() staticBecause: string;
  @Field() message: string;
}

@ObjectType()
export class WellKnownAddress {
  @Field() ip: string;
  @Field() purpose: string;
  @Field(() => String, { nullable: true }) band: string | null;
  @Field() free: boolean;
  @Field(() => [String]) heldBy: string[];
}

@ObjectType()
export class ServiceCidr {
  @Field() cidr: string;
  @Field() family: string;
  @Field() source: string;
  @Field() ready: boolean;
  @Field({ description: 'usable addresses (a decimal string, as it may exceed 2^53)' }) size: string;
  @Field(() => AddressBand, { nullable: true }) staticBand: AddressBand | null;
  @Field(() => AddressBand, { nullable: true }) dynamicBand: AddressBand | null;
  @Field(() => BandCounts) allocated: BandCounts;
  @Field() freeStatic: string;
  @Field() freeDynamic: string;
  @Field(() => Float) utilization: number;
  @Field(() => [ClusterIpRisk], { description: 'static ClusterIPs in the dynamic band' }) risks: ClusterIpRisk[];
  @Field(() => [WellKnownAddress]) wellKnown: WellKnownAddress[];
  @Field(() => Int) conflicts: number;
}

@ObjectType({ description: 'one side of a cluster comparison: GB per month, fraction, cross-zone GB, USD per month' })
export class ClusterTrafficFigures {
  @Field(() => Float, { nullable: true }) trafficGb: number | null;
  @Field(() => Float, { nullable: true }) crossZone: number | null;
  @Field(() => Float, { nullable: true }) crossZoneGb: number | null;
  @Field(() => Float, { nullable: true }) cost: number | null;
}

@ObjectType({ description: "a cluster's model against its measurement (REST: GET /v1/clusters/{id}/measured-traffic)" })
export class ClusterMeasuredTraffic {
  @Field(() => Int) servicesMeasured: number;
  @Field(() => Int) servicesWithMeasuredZones: number;
  @Field(() => Float, { nullable: true }) measuredShare: number | null;
  @Field(() => String, { nullable: true }) oldestMeasurementAt: string | null;
  @Field(() => ClusterTrafficFigures) estimated: ClusterTrafficFigures;
  @Field(() => ClusterTrafficFigures) measured: ClusterTrafficFigures;
  @Field(() => ClusterTrafficFigures, { description: 'estimated − measured' }) error: ClusterTrafficFigures;
}
