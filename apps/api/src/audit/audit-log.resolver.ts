import { Inject, UseGuards } from '@nestjs/common';
import { Args, Field, ID, Int, ObjectType, Query, Resolver } from '@nestjs/graphql';
import type { z } from 'zod';
import { ApiKeyGuard, RequireRole } from '../auth/api-key.guard.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { parseInput } from '../http/validation.js';
import { type AuditEntrySchema, AuditLogQuery } from './audit-log.schemas.js';
import { AuditLogService } from './audit-log.service.js';

@ObjectType('AuditEntry', { description: 'one admin change: who, what, when, from where' })
export class AuditEntryModel {
  @Field(() => ID) id: string;
  @Field({ description: 'RFC 3339' }) at: string;
  @Field({ description: '`api_key`, `sso` (a person), `bearer_token` (a program) or `admin_cli`' }) actorType: string;
  @Field(() => ID, { nullable: true }) actorKeyId: string | null;
  @Field({ description: "the key's name, the person's name or email, the token's subject, or the admin CLI's user" })
  actorName: string;
  @Field(() => String, { nullable: true, description: "the identity provider's subject" }) actorSubject: string | null;
  @Field(() => String, { nullable: true }) actorEmail: string | null;
  @Field(() => String, { nullable: true, description: 'viewer, operator or admin' }) actorRole: string | null;
  @Field(() => String, { nullable: true }) clientAddress: string | null;
  @Field({ description: '`<thing>.<verb>`, e.g. `cluster.price_change`' }) action: string;
  @Field() targetType: string;
  @Field(() => String, { nullable: true }) targetId: string | null;
  @Field({ description: 'what changed, as a JSON object (never a secret)' }) details: string;
}

@ObjectType('AuditLogConnection')
export class AuditLogConnectionModel {
  @Field(() => [AuditEntryModel]) nodes: AuditEntryModel[];
  @Field(() => String, { nullable: true }) nextCursor: string | null;
}

function entryModel(entry: z.output<typeof AuditEntrySchema>): AuditEntryModel {
  return {
    id: entry.id,
    at: entry.at,
    actorType: entry.actor.type,
    actorKeyId: entry.actor.keyId,
    actorName: entry.actor.name,
    actorSubject: entry.actor.subject,
    actorEmail: entry.actor.email,
    actorRole: entry.actor.role,
    clientAddress: entry.actor.clientAddress,
    action: entry.action,
    targetType: entry.target.type,
    targetId: entry.target.id,
    details: JSON.stringify(entry.details),
  };
}

/** The audit log over GraphQL: the REST listing's filters and cursors; admin keys only. */
@Resolver(() => AuditEntryModel)
@UseGuards(ApiKeyGuard)
export class AuditLogResolver {
  constructor(@Inject(AuditLogService) private readonly entries: AuditLogService) {}

  @Query(() => AuditLogConnectionModel, { description: 'admin changes, newest first (admin)' })
  @RequireRole('admin')
  async auditLog(
    @CurrentCaller() caller: Caller,
    @Args('action', { nullable: true }) action?: string,
    @Args('from', { nullable: true }) from?: string,
    @Args('to', { nullable: true }) to?: string,
    @Args('first', { type: () => Int, nullable: true }) first?: number,
    @Args('after', { nullable: true }) after?: string,
  ): Promise<AuditLogConnectionModel> {
    const given = Object.entries({ action, from, to, limit: first, cursor: after }).filter(([, v]) => v != null);
    const page = await this.entries.list(
      caller.organizationId,
      parseInput(AuditLogQuery, Object.fromEntries(given), 'query'),
    );
    return { nodes: page.entries.map(entryModel), nextCursor: page.nextCursor };
  }
}
