import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCluster, repositoryDatabase, type RepositoryDatabase } from '../../../test/support/repositories.js';
import { createSession, membersOf, revokeSession, type SignedInPerson, upsertMember } from '../src/index.js';

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
