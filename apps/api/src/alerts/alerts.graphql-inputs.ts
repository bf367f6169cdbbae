import { Field, Float, ID, InputType } from '@nestjs/graphql';

/**
 * GraphQL inputs of the alerts' writes: the REST bodies (POST/PATCH /v1/alert-channels and
 * /v1/alert-rules), checked by the same zod schemas once the resolver has them.
 */
@InputType('AlertChannelInput')
export class AlertChannelInput {
  @Field() name: string;
  @Field({ description: 'slack | teams | email | webhook' }) kind: string;
  @Field({ description: 'slack/teams/webhook: the https URL; email: comma-separated addresses. Write-only' })
  target: string;
  @Field(() => String, { nullable: true, description: 'webhook only: standard (default) | zonewise | both' })
  signature?: string | null;
  @Field(() => Boolean, { nullable: true }) enabled?: boolean | null;
}

@InputType('AlertChannelChanges')
export class AlertChannelChanges {
  @Field(() => String, { nullable: true }) name?: string | null;
  @Field(() => String, { nullable: true }) target?: string | null;
  @Field(() => String, { nullable: true }) signature?: string | null;
  @Field(() => Boolean, { nullable: true }) enabled?: boolean | null;
}

@InputType('AlertQuietHoursInput')
export class AlertQuietHoursInput {
  @Field({ description: 'HH:MM' }) start: string;
  @Field({ description: 'HH:MM' }) end: string;
  @Field(() => String, { nullable: true, description: 'IANA time zone (default UTC)' }) timeZone?: string | null;
}

@InputType('AlertRuleInput')
export class AlertRuleInput {
  @Field() name: string;
  @Field({ description: 'hints-lost | drift | savings-missed | agent-stale | traffic-source-failing' }) kind: string;
  @Field(() => Float, { nullable: true, description: 'savings-missed only' }) threshold?: number | null;
  @Field(() => [ID], { nullable: true, description: 'empty or absent: every cluster' }) clusterIds?: string[] | null;
  @Field(() => [ID]) channelIds: string[];
  @Field(() => AlertQuietHoursInput, { nullable: true }) quietHours?: AlertQuietHoursInput | null;
  @Field(() => Boolean, { nullable: true }) enabled?: boolean | null;
}

@InputType('AlertRuleChanges')
export class AlertRuleChanges {
  @Field(() => String, { nullable: true }) name?: string | null;
  @Field(() => Float, { nullable: true, description: 'savings-missed only' }) threshold?: number | null;
  @Field(() => [ID], { nullable: true }) clusterIds?: string[] | null;
  @Field(() => [ID], { nullable: true }) channelIds?: string[] | null;
  @Field(() => AlertQuietHoursInput, { nullable: true, description: 'null removes the quiet hours' })
  quietHours?: AlertQuietHoursInput | null;
  @Field(() => Boolean, { nullable: true }) enabled?: boolean | null;
}

/** Only the fields given: GraphQL passes absent arguments as undefined, explicit ones as null. */
export function given<T extends object>(fields: T, nullable: readonly string[] = []): Partial<T> {
  return Object.fromEntries(
    Object.entries(fields).filter(
      ([field, value]) => value !== undefined && (value !== null || nullable.includes(field)),
    ),
  ) as Partial<T>;
}
