import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import {
  createOrganization,
  createPrismaClient,
  openWithKeyring,
  type PrismaClient,
  readWebhookSecret,
  sealedKeyId,
  sealWithKeyring,
} from '@zw/db';
import { parseEnvironment, reportsEnvSchema } from '@zw/queue';
import { keyringProblem, parseKeyring } from '@zw/reports';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.js';
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

/**
 * A secret sealed the way the keyring did before version 2 (written out here, frozen): `0x01 ‖ id length ‖
 * id ‖ iv ‖ tag ‖ ciphertext`, AES-256-GCM under one SHA-256 of the key's text, no associated data.
 */
function sealedVersion1(ring: string, text: string): Uint8Array {
  const [id, key] = [ring.slice(0, ring.indexOf(':')), ring.slice(ring.indexOf(':') + 1)];
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', createHash('sha256').update(key, 'utf8').digest(), iv);
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  const header = Buffer.concat([Buffer.from([1, Buffer.byteLength(id)]), Buffer.from(id, 'utf8')]);
  return new Uint8Array(Buffer.concat([header, iv, cipher.getAuthTag(), body]));
}

describe('the keyring', () => {
  it('seals with the current key, names it, and opens with any key of the ring', () => {
    const oldRing = parseKeyring(OLD);
    const rotated = parseKeyring(`${NEW},${OLD}`);
    const sealed = sealWithKeyring(oldRing, 'zws_secret-value');
    expect(Buffer.from(sealed).toString('latin1')).not.toContain('zws_secret-value');
    expect(sealedKeyId(sealed)).toBe('old-1');
    expect(openWithKeyring(oldRing, sealed)).toBe('zws_secret-value');
    expect(openWithKeyring(rotated, sealed)).toBe('zws_secret-value');
    expect(sealedKeyId(sealWithKeyring(rotated, 'x'))).toBe('new-2');
    // Without its key, or tampered with: nothing.
    expect(openWithKeyring(parseKeyring(NEW), sealed)).toBeNull();
    const tampered = new Uint8Array(sealed);
    tampered[tampered.length - 1] ^= 1;
    expect(openWithKeyring(oldRing, tampered)).toBeNull();
    // The same id with another key does not open it either.
    expect(openWithKeyring(parseKeyring('old-1:some-other-key-material'), sealed)).toBeNull();
  });

  it('binds what the secret is for: sealed for one context, it opens in no other', () => {
    const ring = parseKeyring(OLD);
    const sealed = sealWithKeyring(ring, 'client-secret', 'sso-config.client-secret:org-a');
    expect(sealed[0]).toBe(2); // version 2: HKDF-derived key, associated data
    expect(openWithKeyring(ring, sealed, 'sso-config.client-secret:org-a')).toBe('client-secret');
    expect(openWithKeyring(ring, sealed, 'sso-config.client-secret:org-b')).toBeNull();
    expect(openWithKeyring(ring, sealed)).toBeNull();
    // The header is bound too: the same bytes under another key id do not open.
    const renamed = new Uint8Array(sealed);
    renamed[2] = 'O'.charCodeAt(0);
    expect(
      openWithKeyring(parseKeyring(`Old-1:${OLD.slice(6)}`), renamed, 'sso-config.client-secret:org-a'),
    ).toBeNull();
  });

  it('still opens secrets sealed in version 1, whatever the context', () => {
    const old = sealedVersion1(OLD, 'zws_from-before');
    expect(sealedKeyId(old)).toBe('old-1');
    expect(openWithKeyring(parseKeyring(`${NEW},${OLD}`), old, 'report-schedule.webhook-secret')).toBe(
      'zws_from-before',
    );
    expect(openWithKeyring(parseKeyring(NEW), old)).toBeNull();
  });

  it('refuses a malformed setting at boot, naming the problem but never a key', () => {
    expect(keyringProblem('k1:short')).toMatch(/at least 16 characters/);
    expect(keyringProblem('no-colon-here-but-long-enough')).toBe('entry 1 is not id:key');
    expect(keyringProblem(`${OLD},${OLD}`)).toMatch(/appears twice/);
    expect(() => parseEnvironment(reportsEnvSchema, { REPORT_WEBHOOK_ENCRYPTION_KEYS: 'k1:short' })).toThrow(
      /REPORT_WEBHOOK_ENCRYPTION_KEYS: key "k1" must be at least 16 characters/,
    );
    expect(parseEnvironment(reportsEnvSchema, {}).REPORT_WEBHOOK_ENCRYPTION_KEYS).toBeUndefined();
  });
});

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
