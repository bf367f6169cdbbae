import { createOrganization, createPrismaClient, type PrismaClient, readWebhookSecret } from '@zw/db';
import { parseEnvironment, reportsEnvSchema } from '@zw/queue';
import { parseKeyring } from '@zw/secrets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { sealedVersion1 } from '../../../test/support/legacy-secrets.js';
import { WebhookSecretKeys } from '../src/reports/webhook-secret-sealer.service.js';

/**
 * Webhook signing secrets at rest: sealed with the current key of REPORT_WEBHOOK_ENCRYPTION_KEYS (its id
 * stored with the ciphertext), opened with any key of the ring, and on the worker's start plain-text
 * secrets from before encryption and secrets under a retired key are re-encrypted with the current one.
 */
const OLD = 'old-1:the-first-webhook-key-0001';
const NEW = 'new-2:the-second-webhook-key-002';

let db: TestDatabase;
let prisma: PrismaClient;
let organizationId: string;

beforeAll(async () => {
  db = await createTestDatabase('whsecrets');
  prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 2 });
  organizationId = (await createOrganization(prisma, { slug: 'secrets' })).id;
});

afterAll(async () => {
  await prisma?.$disconnect();
  await db?.drop();
});

async function schedule(name: string, secretColumns: Record<string, unknown>): Promise<string> {
  const row = await prisma.reportSchedule.create({
    data: {
      organizationId,
      name,
      cadence: 'daily',
      cronExpression: '0 6 * * *',
      timeZone: 'UTC',
      clusterIds: [],
      formats: ['json'],
      webhookUrl: 'https://hooks.example.com/zonewise',
      webhookSecretPrefix: 'zws_abcdef',
      anchorAt: new Date(),
      ...secretColumns,
    },
  });
  return row.id;
}

describe('re-encryption when the worker starts', () => {
  it('encrypts plain-text secrets and re-encrypts those under a retired key; the old key can then go', async () => {
    const legacy = await schedule('legacy', { webhookSecret: 'zws_legacy-plain-text' });
    const underOld = await schedule('under-old-key', {
      webhookSecretSealed: sealedVersion1(OLD, 'zws_sealed-under-old'),
      webhookSecretKeyId: 'old-1',
    });
    const none = await schedule('no-webhook-secret', {});
    const config = parseEnvironment(reportsEnvSchema, { REPORT_WEBHOOK_ENCRYPTION_KEYS: `${NEW},${OLD}` });
    const keys = new WebhookSecretKeys(prisma as never, config);
    expect(await keys.reseal(keys.keyring!)).toBe(2);
    expect(await keys.reseal(keys.keyring!)).toBe(0); // nothing left to do

    const rows = new Map(
      (await prisma.reportSchedule.findMany({ where: { organizationId } })).map((row) => [row.id, row]),
    );
    const newOnly = parseKeyring(NEW);
    for (const [id, secret] of [
      [legacy, 'zws_legacy-plain-text'],
      [underOld, 'zws_sealed-under-old'],
    ] as const) {
      const row = rows.get(id)!;
      expect(row.webhookSecret).toBeNull();
      expect(row.webhookSecretKeyId).toBe('new-2');
      expect(row.webhookSecretSealed![0]).toBe(2); // re-sealed in version 2
      expect(Buffer.from(row.webhookSecretSealed!).toString('latin1')).not.toContain(secret);
      expect(readWebhookSecret(newOnly, row)).toEqual({ secret });
    }
    expect(rows.get(none)).toMatchObject({ webhookSecret: null, webhookSecretSealed: null });
    // A worker that lost every key says so instead of signing with something else.
    expect(readWebhookSecret(parseKeyring(OLD), rows.get(legacy)!)).toMatchObject({
      secret: null,
      problem: expect.stringMatching(/cannot be decrypted/),
    });
  });
});
