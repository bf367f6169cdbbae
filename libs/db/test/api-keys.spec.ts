import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCluster, repositoryDatabase, type RepositoryDatabase } from '../../../test/support/repositories.js';
import {
  apiKeyByHash,
  apiKeyOf,
  apiKeysOf,
  createApiKey,
  hashApiKey,
  recordApiKeyUse,
  revokeApiKey,
} from '../src/index.js';

let db: RepositoryDatabase;
let organizationId: string;

beforeAll(async () => {
  db = await repositoryDatabase('repo_api_keys');
  ({ organizationId } = await addCluster(db.prisma, { organizationSlug: 'keys', name: 'a' }));
});

afterAll(async () => {
  await db?.drop();
});

describe('apiKeyByHash', () => {
  it("reads a key by its secret's hash, with its organization, role and expiry", async () => {
    const expiresAt = new Date('2030-01-01T00:00:00Z');
    const { apiKey, key } = await createApiKey(db.prisma, { organizationId, name: 'ci', role: 'operator', expiresAt });

    expect(await apiKeyByHash(db.readDb, hashApiKey(key), 60)).toEqual({
      id: apiKey.id,
      name: 'ci',
      expires_at: expiresAt,
      organization_id: organizationId,
      role: 'operator',
      revoked: false,
      stale_use: true,
    });
  });

  it('says a key is revoked, and knows no secret that is not a key', async () => {
    const { apiKey, key } = await createApiKey(db.prisma, { organizationId, name: 'old', role: 'viewer' });
    await db.prisma.apiKey.update({ where: { id: apiKey.id }, data: { revokedAt: new Date() } });

    expect((await apiKeyByHash(db.readDb, hashApiKey(key), 60))?.revoked).toBe(true);
    expect(await apiKeyByHash(db.readDb, hashApiKey('zwk_no-such-key-at-all'), 60)).toBeNull();
  });
});

describe('recordApiKeyUse', () => {
  it("records a use, after which the key's use is recent", async () => {
    const { apiKey, key } = await createApiKey(db.prisma, { organizationId, name: 'used', role: 'admin' });
    expect((await apiKeyByHash(db.readDb, hashApiKey(key), 3600))?.stale_use).toBe(true);

    await recordApiKeyUse(db.readDb, apiKey.id);

    const stored = await db.prisma.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } });
    expect(stored.lastUsedAt).not.toBeNull();
    expect((await apiKeyByHash(db.readDb, hashApiKey(key), 3600))?.stale_use).toBe(false);
  });
});

describe('apiKeysOf', () => {
  it("lists the organization's own keys, revoked ones too, newest first", async () => {
    const { organizationId: listed } = await addCluster(db.prisma, { organizationSlug: 'listed', name: 'a' });
    const { apiKey: older } = await createApiKey(db.prisma, { organizationId: listed, name: 'older', role: 'viewer' });
    const { apiKey: newer } = await createApiKey(db.prisma, { organizationId: listed, name: 'newer', role: 'admin' });
    await db.prisma.apiKey.update({
      where: { id: older.id },
      data: { revokedAt: new Date(), createdAt: new Date(newer.createdAt.getTime() - 60_000) },
    });
    await createApiKey(db.prisma, { organizationId, name: 'not theirs', role: 'viewer' });

    const keys = await apiKeysOf(db.prisma, listed);

    expect(keys.map((key) => key.id)).toEqual([newer.id, older.id]);
    expect(keys[1].revokedAt).not.toBeNull();
  });
});

describe('apiKeyOf and revokeApiKey', () => {
  it("find the organization's own key, and revoke it", async () => {
    const { organizationId: other } = await addCluster(db.prisma, { organizationSlug: 'keyless', name: 'a' });
    const { apiKey, key } = await createApiKey(db.prisma, { organizationId, name: 'to-revoke', role: 'viewer' });

    expect(await apiKeyOf(db.prisma, organizationId, apiKey.id)).toMatchObject({ id: apiKey.id, revokedAt: null });
    expect(await apiKeyOf(db.prisma, other, apiKey.id)).toBeNull();
    const at = new Date('2026-11-20T10:00:00Z');
    await revokeApiKey(db.prisma, apiKey.id, at);
    expect((await apiKeyOf(db.prisma, organizationId, apiKey.id))?.revokedAt).toEqual(at);
    expect((await apiKeyByHash(db.readDb, hashApiKey(key), 60))?.revoked).toBe(true);
  });
});
