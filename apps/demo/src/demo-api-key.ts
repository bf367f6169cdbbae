import { createApiKey, createOrganization, findApiKey, findOrganizationBySlug, type Db } from '@zw/db';

export const DEMO_ORGANIZATION = 'demo';

export interface DemoTenant {
  organizationId: string;
  apiKey: string;
}

/**
 * The demo organization and its admin API key: the key from ZONEWISE_DEMO_API_KEY (created on first use,
 * reused afterwards, so scripts can rely on it), or a new generated one.
 */
export async function ensureDemoTenant(db: Db, fixedKey: string | undefined): Promise<DemoTenant> {
  const organization =
    (await findOrganizationBySlug(db, DEMO_ORGANIZATION)) ??
    (await createOrganization(db, { slug: DEMO_ORGANIZATION, name: 'zonewise demo' }));
  if (fixedKey !== undefined) {
    const existing = await findApiKey(db, fixedKey);
    if (existing && existing.organizationId !== organization.id) {
      throw new Error('ZONEWISE_DEMO_API_KEY is already the key of another organization; choose another');
    }
    if (existing?.revoked) throw new Error('ZONEWISE_DEMO_API_KEY was revoked; choose another');
    if (existing) return { organizationId: organization.id, apiKey: fixedKey };
  }
  const { key } = await createApiKey(db, {
    organizationId: organization.id,
    name: fixedKey === undefined ? 'demo (generated)' : 'demo (ZONEWISE_DEMO_API_KEY)',
    role: 'admin',
    key: fixedKey,
  });
  return { organizationId: organization.id, apiKey: key };
}
