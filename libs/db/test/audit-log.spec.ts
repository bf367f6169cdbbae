import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCluster, repositoryDatabase, type RepositoryDatabase } from '../../../test/support/repositories.js';
import { type AuditActor, auditLogEntries, recordAudit } from '../src/index.js';

let db: RepositoryDatabase;
let organizationId: string;
let otherOrganizationId: string;

const actor: AuditActor = { type: 'admin_cli', keyId: null, name: 'ops', clientAddress: null };
const at = (minute: number) => new Date(Date.UTC(2026, 10, 20, 10, minute));

/** An entry of the organization's at `minute`; its id. */
async function entry(organization: string, action: string, minute: number): Promise<string> {
  const targetId = `${action}@${minute}`;
  await recordAudit(db.prisma, actor, { organizationId: organization, action, targetType: 'cluster', targetId });
  const { id } = await db.prisma.auditLogEntry.findFirstOrThrow({ where: { targetId } });
  await db.prisma.auditLogEntry.update({ where: { id }, data: { at: at(minute) } });
  return id;
}

beforeAll(async () => {
  db = await repositoryDatabase('repo_audit_log');
  ({ organizationId } = await addCluster(db.prisma, { organizationSlug: 'audited', name: 'a' }));
  ({ organizationId: otherOrganizationId } = await addCluster(db.prisma, { organizationSlug: 'elsewhere', name: 'b' }));
});

afterAll(async () => {
  await db?.drop();
});

describe('auditLogEntries', () => {
  it("pages through the organization's own entries newest first, filtered by action and time", async () => {
    const create = await entry(organizationId, 'cluster.create', 1);
    const update = await entry(organizationId, 'cluster.update', 2);
    const key = await entry(organizationId, 'api_key.create', 3);
    const clusterish = await entry(organizationId, 'clusterish.create', 4);
    await entry(otherOrganizationId, 'cluster.create', 5);
    const ids = (query: Parameters<typeof auditLogEntries>[2]) =>
      auditLogEntries(db.prisma, organizationId, query).then((rows) => rows.map((row) => row.id));

    expect(await ids({ take: 10 })).toEqual([clusterish, key, update, create]);
    expect(await ids({ action: 'cluster', take: 10 })).toEqual([update, create]);
    expect(await ids({ action: 'cluster.create', take: 10 })).toEqual([create]);
    expect(await ids({ from: at(2), to: at(4), take: 10 })).toEqual([key, update]);
    const [first, second] = await auditLogEntries(db.prisma, organizationId, { take: 2 });
    expect(await ids({ after: { at: second.at, id: second.id }, take: 10 })).toEqual([update, create]);
    expect(first.id).toBe(clusterish);
    expect(await auditLogEntries(db.prisma, otherOrganizationId, { action: 'api_key', take: 10 })).toEqual([]);
  });
});
