import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCluster, repositoryDatabase, type RepositoryDatabase } from '../../../test/support/repositories.js';
import {
  createSession,
  deleteSsoSettings,
  findSsoSettings,
  memberOf,
  membersOf,
  revokeOrganizationSessions,
  revokeSession,
  saveSsoSettings,
  setMemberDisabled,
  type SignedInPerson,
  upsertMember,
} from '../src/index.js';

let db: RepositoryDatabase;
let organizationId: string;
let otherOrganizationId: string;

const now = new Date('2026-11-20T10:00:00Z');
const hours = (n: number) => new Date(now.getTime() + n * 3_600_000);

beforeAll(async () => {
  db = await repositoryDatabase('repo_sso');
  ({ organizationId } = await addCluster(db.prisma, { organizationSlug: 'members', name: 'a' }));
  ({ organizationId: otherOrganizationId } = await addCluster(db.prisma, { organizationSlug: 'strangers', name: 'b' }));
});

afterAll(async () => {
  await db?.drop();
});

function person(organization: string, subject: string): SignedInPerson {
  return { organizationId: organization, subject, email: null, name: subject, role: 'viewer', groups: [] };
}

describe('membersOf', () => {
  it("lists the organization's members, latest sign-in first, each with its sessions still open", async () => {
    const ada = await upsertMember(db.prisma, person(organizationId, 'ada'), hours(-5));
    const bob = await upsertMember(db.prisma, person(organizationId, 'bob'), hours(-1));
    await upsertMember(db.prisma, person(otherOrganizationId, 'eve'), hours(-2));
    const session = (userId: string, expiresAt: Date) =>
      createSession(db.prisma, { organizationId, userId, role: 'viewer', expiresAt, clientAddress: null });
    await session(ada.id, hours(2));
    await session(ada.id, hours(8));
    await session(ada.id, hours(-1)); // expired
    const { session: revoked } = await session(ada.id, hours(3));
    await revokeSession(db.prisma, revoked.id, hours(-1));

    const members = await membersOf(db.prisma, organizationId, now);

    expect(members.map((member) => [member.subject, member.sessions])).toEqual([
      ['bob', []],
      ['ada', [{ expiresAt: hours(8) }, { expiresAt: hours(2) }]],
    ]);
    expect(members[1]).toMatchObject({ id: ada.id, organizationId, role: 'viewer' });
    expect(bob.id).toBe(members[0].id);
  });
});

describe('memberOf and setMemberDisabled', () => {
  it("find the organization's own member, and disable then enable it", async () => {
    const carol = await upsertMember(db.prisma, person(organizationId, 'carol'), hours(-3));
    const dave = await upsertMember(db.prisma, person(otherOrganizationId, 'dave'), hours(-3));

    expect(await memberOf(db.prisma, organizationId, carol.id)).toMatchObject({ id: carol.id, subject: 'carol' });
    expect(await memberOf(db.prisma, organizationId, dave.id)).toBeNull();
    expect((await setMemberDisabled(db.prisma, carol.id, true, now)).disabledAt).toEqual(now);
    expect((await memberOf(db.prisma, organizationId, carol.id))?.disabledAt).toEqual(now);
    expect((await setMemberDisabled(db.prisma, carol.id, false)).disabledAt).toBeNull();
    expect((await memberOf(db.prisma, otherOrganizationId, dave.id))?.disabledAt).toBeNull();
  });
});

describe('deleteSsoSettings and revokeOrganizationSessions', () => {
  it("remove the organization's settings and end its open sessions, no other organization's", async () => {
    const settings = {
      issuer: 'https://idp.example.com',
      clientId: 'zonewise',
      audience: 'zonewise',
      groupsClaim: 'groups',
      roleMappings: [],
      defaultRole: null,
      enabled: true,
    };
    await saveSsoSettings(db.prisma, organizationId, settings, null);
    await saveSsoSettings(db.prisma, otherOrganizationId, { ...settings, audience: 'other' }, null);
    const open = async (organization: string, subject: string) => {
      const member = await upsertMember(db.prisma, person(organization, subject));
      const { session } = await createSession(db.prisma, {
        organizationId: organization,
        userId: member.id,
        role: 'viewer',
        expiresAt: hours(24 * 365 * 10),
        clientAddress: null,
      });
      return session.id;
    };
    const mine = await open(organizationId, 'erin');
    const theirs = await open(otherOrganizationId, 'frank');
    const stillOpen = () =>
      db.prisma.session.findMany({ where: { id: { in: [mine, theirs] }, revokedAt: null }, select: { id: true } });

    expect(await deleteSsoSettings(db.prisma, organizationId)).toBe(true);
    expect(await deleteSsoSettings(db.prisma, organizationId)).toBe(false);
    expect(await findSsoSettings(db.prisma, organizationId, null)).toBeNull();
    expect(await findSsoSettings(db.prisma, otherOrganizationId, null)).not.toBeNull();
    expect(await revokeOrganizationSessions(db.prisma, organizationId)).toBeGreaterThanOrEqual(1);
    expect(await stillOpen()).toEqual([{ id: theirs }]);
    expect(await revokeOrganizationSessions(db.prisma, organizationId)).toBe(0);
  });
});
