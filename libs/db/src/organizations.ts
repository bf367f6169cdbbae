import type { Db } from './db-client.js';
import type { Organization } from './generated/prisma/client.js';

export interface CreateOrganizationInput {
  slug: string;
  name?: string;
}

/** Creates an organization; fails with Prisma's P2002 when the slug is taken. */
export async function createOrganization(db: Db, input: CreateOrganizationInput): Promise<Organization> {
  return db.organization.create({ data: { slug: input.slug, name: input.name ?? input.slug } });
}

export async function findOrganizationBySlug(db: Db, slug: string): Promise<Organization | null> {
  return db.organization.findUnique({ where: { slug } });
}

/** The organization's history retention override (days); null when it has none (or does not exist). */
export async function historyRetentionDaysOf(db: Db, organizationId: string): Promise<number | null> {
  const row = await db.organization.findUnique({
    where: { id: organizationId },
    select: { historyRetentionDays: true },
  });
  return row?.historyRetentionDays ?? null;
}
