import { Field, ID, InputType, Int, ObjectType } from '@nestjs/graphql';
import {
  CrossZoneFractions,
  DataPath,
  HintState,
  HintStateCounts,
  RoutingMode,
  ZoneAllocation,
} from '../graphql-models/models.js';

/** GraphQL types of the cluster what-if (`clusterSimulation`): the REST body's shape, and the analysis' core figures. */

@InputType('EnableRoutingInput')
export class EnableRoutingInput {
  @Field() namespace: string;
  @Field() name: string;
  @Field(() => RoutingMode) mode: RoutingMode;
}

@InputType('ScaleReplicasInput')
export class ScaleReplicasInput {
  @Field() namespace: string;
  @Field() name: string;
  @Field() zone: string;
  @Field(() => Int, { description: 'ready endpoints to add (positive) or remove (negative) in the zone' })
  delta: number;
}

@InputType('RemoveZoneNodesInput')
export class RemoveZoneNodesInput {
  @Field() zone: string;
  @Field(() => Boolean, {
    nullable: true,
    description: "move the zone's endpoints to the remaining zones' nodes instead of dropping them",
  })
  reschedule?: boolean | null;
}

@InputType('WhatIfInput', { description: 'changes applied to a copy of the snapshot before it is analyzed' })
export class WhatIfInput {
  @Field(() => [EnableRoutingInput], { nullable: true }) enableRouting?: EnableRoutingInput[] | null;
  @Field(() => [ScaleReplicasInput], { nullable: true }) scaleReplicas?: ScaleReplicasInput[] | null;
  @Field(() => [RemoveZoneNodesInput], { nullable: true }) removeZoneNodes?: RemoveZoneNodesInput[] | null;
}

@InputType('ServiceRefInput')
export class ServiceRefInput {
  @Field() namespace: string;
  @Field() name: string;
}

@ObjectType({ description: 'one Service of the simulated analysis (the `services[]` of `zonewise analyze`)' })
export class SimulatedService {
  @Field() namespace: string;
  @Field() name: string;
  @Field(() => RoutingMode) routing: RoutingMode;
  @Field(() => HintState) hintState: HintState;
  @Field(() => String, { nullable: true }) hintReason: string | null;
  @Field(() => Int) readyEndpoints: number;
  @Field(() => CrossZoneFractions) crossZone: CrossZoneFractions;
  @Field(() => DataPath) dataPath: DataPath;
  @Field(() => [ZoneAllocation]) zones: ZoneAllocation[];
}

@ObjectType({ description: 'the whole cluster after the what-ifs (the `summary` of `zonewise analyze`)' })
export class SimulationSummary {
  @Field(() => HintStateCounts) services: HintStateCounts;
  @Field(() => Int) servicesWithDrift: number;
  @Field(() => Int) servicesWithIgnoredHints: number;
  @Field(() => CrossZoneFractions) crossZone: CrossZoneFractions;
}

@ObjectType({ description: "the cluster's newest processed snapshot analyzed with what-ifs; nothing is stored" })
export class ClusterSimulation {
  @Field(() => ID) clusterId: string;
  @Field() clusterName: string;
  @Field(() => ID) snapshotId: string;
  @Field({ description: 'captured-at of the snapshot simulated on' }) capturedAt: string;
  @Field(() => SimulationSummary) summary: SimulationSummary;
  @Field(() => [SimulatedService]) services: SimulatedService[];
}
