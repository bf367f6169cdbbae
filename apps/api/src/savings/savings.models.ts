import { Field, ID, Int, ObjectType, Float } from '@nestjs/graphql';
import { CrossZoneCost, CrossZoneCostFigures } from '../graphql-models/models.js';

/** The `savings` query's answer and the cluster type's `savings` field. */

@ObjectType()
export class SavingsFigures extends CrossZoneCostFigures {
  @Field(() => Int) services: number;
  @Field(() => Int) opportunities: number;
  @Field() estimate: boolean;
}

@ObjectType()
export class SavingsGroup extends SavingsFigures {
  @Field(() => ID) clusterId: string;
  @Field() clusterName: string;
  @Field(() => String, { nullable: true }) namespace: string | null;
  @Field(() => String, { nullable: true }) name: string | null;
}

@ObjectType()
export class Opportunity {
  @Field(() => ID) clusterId: string;
  @Field() clusterName: string;
  @Field() namespace: string;
  @Field() name: string;
  @Field(() => Float) trafficGb: number;
  @Field(() => CrossZoneCost) missedSavings: CrossZoneCost;
  @Field() estimate: boolean;
}

@ObjectType()
export class SavingsReport {
  @Field() from: string;
  @Field() to: string;
  @Field(() => SavingsFigures) totals: SavingsFigures;
  @Field(() => [SavingsGroup]) groups: SavingsGroup[];
  @Field(() => [Opportunity]) opportunities: Opportunity[];
}
