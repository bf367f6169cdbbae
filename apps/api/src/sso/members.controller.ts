import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type AuditActor,
  memberOf,
  membersOf,
  PrismaService,
  recordAudit,
  revokeMemberSessions,
  setMemberDisabled,
} from '@zw/db';
import { z } from 'zod';
import { CurrentActor } from '../audit/audit-actor.js';
import { AdminOnly, ApiKeyAuth } from '../auth/auth.decorators.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { SessionAuthenticator } from '../auth/session-authenticator.js';
import { ApiBodyFrom, ApiPathParams, ApiResponseFrom } from '../http/openapi.js';
import { isoDate, RoleSchema } from '../http/schemas.js';
import { parseInput } from '../http/validation.js';
import { notFound } from '../problem.js';

const MemberSchema = z.object({
  id: z.uuid(),
  subject: z.string().describe("the identity provider's subject"),
  email: z.string().nullable(),
  name: z.string().nullable(),
  role: RoleSchema.describe('what their groups gave at their latest sign-in'),
  groups: z.array(z.string()),
  lastSignInAt: isoDate,
  disabledAt: isoDate.nullable(),
  activeSessions: z.number().int(),
  sessionExpiresAt: isoDate.nullable().describe('when their latest open session ends'),
});

const MemberListSchema = z.object({ members: z.array(MemberSchema) });
const MemberChangeSchema = z.object({ id: z.uuid(), disabledAt: isoDate.nullable() });

const UpdateMemberBody = z
  .object({ disabled: z.boolean().describe('true: they cannot sign in, and their sessions end now') })
  .strict();

const memberIdParam = z.object({ id: z.uuid({ message: 'must be a UUID' }) });

/**
 * The people who signed in to the organization through its identity provider. Their role comes from their
 * groups at each sign-in (the provider is where membership is managed); an admin can end someone's
 * sessions or disable them here.
 */
@ApiTags('sign-in')
@ApiKeyAuth()
@Controller('v1/members')
export class MembersController {
  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(SessionAuthenticator) private readonly sessions: SessionAuthenticator,
  ) {}

  @Get()
  @AdminOnly()
  @ApiOperation({ summary: 'The members: who signed in through SSO, their role and groups, their open sessions' })
  @ApiResponseFrom(200, MemberListSchema, 'every member, latest sign-in first')
  async list(@CurrentCaller() caller: Caller): Promise<z.output<typeof MemberListSchema>> {
    const rows = await membersOf(this.prisma, caller.organizationId);
    return {
      members: rows.map((row) => ({
        id: row.id,
        subject: row.subject,
        email: row.email,
        name: row.name,
        role: row.role,
        groups: row.groups,
        lastSignInAt: row.lastSignInAt.toISOString(),
        disabledAt: row.disabledAt?.toISOString() ?? null,
        activeSessions: row.sessions.length,
        sessionExpiresAt: row.sessions[0]?.expiresAt.toISOString() ?? null,
      })),
    };
  }

  @Patch(':id')
  @AdminOnly()
  @ApiOperation({ summary: 'Disable a member (their sessions end, they cannot sign in) or enable them again' })
  @ApiPathParams({ id: 'member id' })
  @ApiBodyFrom(UpdateMemberBody)
  @ApiResponseFrom(200, MemberChangeSchema, 'the member as changed')
  async update(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<z.output<typeof MemberChangeSchema>> {
    const memberId = parseInput(memberIdParam, { id }, 'path').id;
    const { disabled } = parseInput(UpdateMemberBody, body, 'body');
    const updated = await this.prisma.$transaction(async (tx) => {
      const member = await memberOf(tx, caller.organizationId, memberId);
      if (!member) throw notFound(`no member ${memberId} in your organization`);
      if ((member.disabledAt !== null) === disabled) return member;
      const changed = await setMemberDisabled(tx, memberId, disabled);
      const ended = disabled ? await revokeMemberSessions(tx, memberId) : 0;
      await recordAudit(tx, actor, {
        organizationId: caller.organizationId,
        action: disabled ? 'member.disable' : 'member.enable',
        targetType: 'member',
        targetId: memberId,
        details: { subject: member.subject, email: member.email, sessionsEnded: ended },
      });
      return changed;
    });
    if (disabled) this.sessions.forget((session) => session.userId === memberId);
    return { id: updated.id, disabledAt: updated.disabledAt?.toISOString() ?? null };
  }

  @Delete(':id/sessions')
  @AdminOnly()
  @HttpCode(204)
  @ApiOperation({ summary: 'Sign a member out everywhere: every open session of theirs ends now' })
  @ApiPathParams({ id: 'member id' })
  async signOutEverywhere(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Param('id') id: string,
  ): Promise<void> {
    const memberId = parseInput(memberIdParam, { id }, 'path').id;
    await this.prisma.$transaction(async (tx) => {
      const member = await memberOf(tx, caller.organizationId, memberId);
      if (!member) throw notFound(`no member ${memberId} in your organization`);
      const ended = await revokeMemberSessions(tx, memberId);
      await recordAudit(tx, actor, {
        organizationId: caller.organizationId,
        action: 'member.sign_out',
        targetType: 'member',
        targetId: memberId,
        details: { subject: member.subject, email: member.email, sessionsEnded: ended },
      });
    });
    this.sessions.forget((session) => session.userId === memberId);
  }
}
