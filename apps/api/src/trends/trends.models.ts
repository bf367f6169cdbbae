import { Field, Float, Int, ObjectType } from '@nestjs/graphql';
import { CrossZoneCost, CrossZoneCostFigures } from '../graphql-models/models.js';

@ObjectType({ description: 'one bucket of a trend: the stored summaries recorded in it' })
export class TrendMonthly extends CrossZoneCostFigures {
  @Field(() => CrossZoneCost) ifEnabled: CrossZoneCost;
}

@ObjectType()
export class TrendServices {
  @Field(() => Float) populated: number;
  @Field(() => Float) removed: number;
  @Field(() => Float) none: number;
}

@ObjectType()
export class TrendPoint {
  @Field() start: string;
  @Field(() => Int) clusters: number;
  @Field(() => Int) snapshots: number;
  @Field(() => TrendServices) services: TrendServices;
  @Field(() => Float) servicesWithDrift: number;
  @Field(() => TrendMonthly) monthly: TrendMonthly;
}

@ObjectType({ description: 'figures over time, as GET /v1/fleet/trends and /v1/clusters/{id}/trends answer them' })
export class Trends {
  @Field({ description: "the range's start: the start of its first bucket (buckets are aligned to UTC)" })
  from: string;
  @Field() to: string;
  @Field() bucket: string;
  @Field({ description: 'whether the range was fitted to the data (no `from` asked for)' }) fitted: boolean;
  @Field(() => [TrendPoint]) points: TrendPoint[];
}
