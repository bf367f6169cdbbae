import { Field, Int, ObjectType } from '@nestjs/graphql';
import { CrossZoneFractions, HintState, RoutingMode } from '../graphql-models/models.js';

/** A Service's state changes over a window (the Service type's `timeline` field). */

@ObjectType()
export class TimelineEntry {
  @Field() from: string;
  @Field(() => String, { nullable: true }) to: string | null;
  @Field(() => RoutingMode) routing: RoutingMode;
  @Field(() => HintState) hintState: HintState;
  @Field(() => String, { nullable: true }) hintReason: string | null;
  @Field(() => CrossZoneFractions) crossZone: CrossZoneFractions;
  @Field(() => Int) readyEndpoints: number;
}

@ObjectType()
export class Timeline {
  @Field() from: string;
  @Field() to: string;
  @Field(() => [TimelineEntry]) entries: TimelineEntry[];
  @Field() truncated: boolean;
  @Field(() => Int) changes: number;
  @Field(() => Int, { description: 'the flapping count' }) hintStateChanges: number;
  @Field() flapping: boolean;
}
