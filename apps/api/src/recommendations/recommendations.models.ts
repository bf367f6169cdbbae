import { Field, Float, ID, Int, ObjectType } from '@nestjs/graphql';
import { CrossZoneCost } from '../graphql-models/models.js';

@ObjectType()
export class ZoneFigure {
  @Field() zone: string;
  @Field(() => Float) value: number;
}

@ObjectType()
export class FixSavings {
  @Field(() => Float, { description: 'drop of the cross-zone fraction against today' }) crossZoneFraction: number;
  @Field(() => Float, { description: 'GB per month' }) crossZoneGb: number;
  @Field(() => Float, { description: 'USD per month' }) cost: number;
}

@ObjectType({ description: 'the workload a fix acts on (from the Pods’ owner references)' })
export class FixWorkload {
  @Field({ description: 'Deployment, StatefulSet, DaemonSet, or the kind of another controller' }) kind: string;
  @Field() namespace: string;
  @Field() name: string;
  @Field(() => [ZoneFigure], { description: 'with several workloads: the endpoints per zone this one gets' })
  endpointsToAdd: ZoneFigure[];
}

@ObjectType({ description: 'a fix that makes the Service route in-zone (the `recommendations` of `zonewise analyze`)' })
export class Recommendation {
  @Field({ description: '`topologyMode`, `replicas`, `trafficDistribution`, `nodes` or `dataPlane`' }) kind: string;
  @Field() summary: string;
  @Field({ description: 'the hint state after the change' }) resultingState: string;
  @Field(() => String, { nullable: true }) reason: string | null;
  @Field(() => Float, { description: 'fraction of requests crossing zones after the change' })
  crossZoneWithHints: number;
  @Field(() => [ZoneFigure], { description: 'per zone, after the change' }) expectedOverload: ZoneFigure[];
  @Field() overloadAboveThreshold: boolean;
  @Field(() => FixSavings) savings: FixSavings;
  @Field(() => [ZoneFigure], { description: 'endpoints to add per zone (negative: fewer there)' })
  endpointsToAdd: ZoneFigure[];
  @Field(() => String, { nullable: true }) trafficDistribution: string | null;
  @Field(() => [String]) nodes: string[];
  @Field(() => Int, { nullable: true, description: 'a replica floor that keeps hints across the counts seen' })
  minReplicas: number | null;
  @Field(() => String, { nullable: true, description: 'the change as a POST /v1/simulate what-if (JSON)' })
  whatIf: string | null;
  @Field() patch: string;
  @Field(() => FixWorkload, {
    nullable: true,
    description: 'the workload the patch acts on; null when unknown (or for kinds that act on none)',
  })
  workload: FixWorkload | null;
  @Field(() => [FixWorkload], { description: 'when the endpoints belong to several workloads: each' })
  workloads: FixWorkload[];
}

@ObjectType()
export class ServiceFixes {
  @Field(() => ID) clusterId: string;
  @Field() clusterName: string;
  @Field() namespace: string;
  @Field() name: string;
  @Field() routing: string;
  @Field() hintState: string;
  @Field(() => String, { nullable: true }) hintReason: string | null;
  @Field(() => Float, { description: 'GB per month' }) trafficGb: number;
  @Field() trafficSource: string;
  @Field(() => CrossZoneCost, { description: 'what the best fix saves per month' }) bestSavings: CrossZoneCost;
  @Field(() => [Recommendation], { description: 'best first' }) recommendations: Recommendation[];
}

@ObjectType()
export class ServiceFixesConnection {
  @Field(() => [ServiceFixes]) nodes: ServiceFixes[];
  @Field(() => String, { nullable: true }) nextCursor: string | null;
}
