import type { Db } from './db-client.js';
import type { Cloud, Organization, Prisma } from './generated/prisma/client.js';

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

/** An organization's id, slug and name; fails with Prisma's P2025 when there is no such organization. */
export async function organizationIdentity(
  db: Db,
  organizationId: string,
): Promise<Pick<Organization, 'id' | 'slug' | 'name'>> {
  return db.organization.findUniqueOrThrow({
    where: { id: organizationId },
    select: { id: true, slug: true, name: true },
  });
}

/** An organization's slug; fails with Prisma's P2025 when there is no such organization. */
export async function organizationSlugOf(db: Db, organizationId: string): Promise<string> {
  const { slug } = await db.organization.findUniqueOrThrow({ where: { id: organizationId }, select: { slug: true } });
  return slug;
}

/** An organization's price per cross-zone GB and its clusters' (by name), with what each cluster's is made of. */
export interface OrganizationPrices {
  crossZonePricePerGb: Prisma.Decimal | null;
  clusters: {
    id: string;
    name: string;
    cloud: Cloud;
    region: string | null;
    crossZonePricePerGb: Prisma.Decimal | null;
  }[];
}

/** The organization's price and its clusters' prices; fails with Prisma's P2025 when there is no such organization. */
export async function organizationPrices(db: Db, organizationId: string): Promise<OrganizationPrices> {
  return db.organization.findUniqueOrThrow({
    where: { id: organizationId },
    select: {
      crossZonePricePerGb: true,
      clusters: {
        select: { id: true, name: true, cloud: true, region: true, crossZonePricePerGb: true },
        orderBy: { name: 'asc' },
      },
    },
  });
}

/** The organization's own price per cross-zone GB (null: none set); fails with Prisma's P2025 when there is no such organization. */
export async function organizationPriceOf(db: Db, organizationId: string): Promise<Prisma.Decimal | null> {
  const { crossZonePricePerGb } = await db.organization.findUniqueOrThrow({
    where: { id: organizationId },
    select: { crossZonePricePerGb: true },
  });
  return crossZonePricePerGb;
}

/** Sets (or, with null, removes) the organization's price per cross-zone GB. */
export async function setOrganizationPrice(db: Db, organizationId: string, pricePerGb: number | null): Promise<void> {
  await db.organization.update({ where: { id: organizationId }, data: { crossZonePricePerGb: pricePerGb } });
}
