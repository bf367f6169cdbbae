import { createHash, randomBytes } from 'node:crypto';
import { type AuditActor, recordAudit } from './audit-log.js';
import type { Db } from './db-client.js';
import type { ApiKey, PrismaClient, Role } from './generated/prisma/client.js';
import type { ReadDb } from './read-db.js';

/** API keys look like `zwk_<43 base64url chars>`: 256 random bits, told apart from agent tokens (`zwa_`) at a glance. */
export const API_KEY_PREFIX = 'zwk_';
const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 8;

export function hashApiKey(key: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(createHash('sha256').update(key, 'utf8').digest());
}

export interface CreateApiKeyInput {
  organizationId: string;
  name: string;
  /** What the key may do: viewer (read), operator or admin. */
  role: Role;
  /**
   * A key chosen by the operator (at least {@link MIN_CHOSEN_KEY_LENGTH} characters), e.g. the demo's
   * ZONEWISE_DEMO_API_KEY, so scripts can rely on it; otherwise one is generated.
   */
  key?: string;
  /** From this instant the key answers 401 "expired"; omitted or null: it never expires. */
  expiresAt?: Date | null;
}

export const MIN_CHOSEN_KEY_LENGTH = 16;

export interface CreatedApiKey {
  apiKey: ApiKey;
  /** The plaintext, shown once to whoever created it; never stored. */
  key: string;
}

/** Creates a key of one role. */
export async function createApiKey(db: Db, input: CreateApiKeyInput): Promise<CreatedApiKey> {
  if (input.key !== undefined && input.key.length < MIN_CHOSEN_KEY_LENGTH) {
    throw new RangeError(`an API key must be at least ${MIN_CHOSEN_KEY_LENGTH} characters`);
  }
  const key = input.key ?? API_KEY_PREFIX + randomBytes(32).toString('base64url');
  const apiKey = await db.apiKey.create({
    data: {
      organizationId: input.organizationId,
      name: input.name,
      role: input.role,
      keyHash: hashApiKey(key),
      keyPrefix: key.slice(0, DISPLAY_PREFIX_LENGTH),
      expiresAt: input.expiresAt ?? null,
    },
  });
  return { apiKey, key };
}

/** Creates a key and its `api_key.create` audit entry in one transaction. */
export async function createAuditedApiKey(
  prisma: PrismaClient,
  input: CreateApiKeyInput,
  actor: AuditActor,
): Promise<CreatedApiKey> {
  return prisma.$transaction(async (tx) => {
    const created = await createApiKey(tx, input);
    await recordAudit(tx, actor, {
      organizationId: input.organizationId,
      action: 'api_key.create',
      targetType: 'api_key',
      targetId: created.apiKey.id,
      details: {
        name: created.apiKey.name,
        role: created.apiKey.role,
        prefix: created.apiKey.keyPrefix,
        expiresAt: created.apiKey.expiresAt?.toISOString() ?? null,
      },
    });
    return created;
  });
}

export interface ApiKeyIdentity {
  keyId: string;
  organizationId: string;
  role: Role;
  revoked: boolean;
  lastUsedAt: Date | null;
}

/** The key a presented secret belongs to (revoked ones included, so callers can say so), or null. */
export async function findApiKey(db: Db, key: string): Promise<ApiKeyIdentity | null> {
  if (key.length < MIN_CHOSEN_KEY_LENGTH) return null;
  const row = await db.apiKey.findUnique({
    where: { keyHash: hashApiKey(key) },
    select: { id: true, organizationId: true, role: true, revokedAt: true, lastUsedAt: true },
  });
  return row
    ? {
        keyId: row.id,
        organizationId: row.organizationId,
        role: row.role,
        revoked: row.revokedAt !== null,
        lastUsedAt: row.lastUsedAt,
      }
    : null;
}

/**
 * The display prefixes (first characters) of every key that may still authenticate: not revoked, not
 * expired. A presented secret whose prefix is not among them cannot be valid, which the API tells
 * without looking the secret up.
 */
export async function activeApiKeyPrefixes(db: Db): Promise<string[]> {
  const rows = await db.apiKey.findMany({
    where: { revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] },
    select: { keyPrefix: true },
    distinct: ['keyPrefix'],
  });
  return rows.map((row) => row.keyPrefix);
}

/** The display prefix of a presented key (what {@link activeApiKeyPrefixes} lists). */
export function apiKeyPrefixOf(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}

/** A key as authentication reads it, by its secret's hash. */
export interface ApiKeyByHashRow {
  id: string;
  name: string;
  expires_at: Date | null;
  organization_id: string;
  role: Role;
  revoked: boolean;
  /** Its last use is unknown or older than the resolution asked for: time to record a use. */
  stale_use: boolean;
}

/** The key whose secret hashes to `hash` (revoked ones included, so callers can say so), or null. */
export async function apiKeyByHash(
  db: ReadDb,
  hash: Uint8Array,
  useResolutionSeconds: number,
): Promise<ApiKeyByHashRow | null> {
  const [row] = await db.query<ApiKeyByHashRow>(
    `SELECT id::text, name, expires_at, organization_id::text, role::text AS role, revoked_at IS NOT NULL AS revoked,
            (last_used_at IS NULL OR last_used_at < now() - make_interval(secs => $2)) AS stale_use
       FROM api_keys WHERE key_hash = $1`,
    [hash, useResolutionSeconds],
  );
  return row ?? null;
}

/** Records that a key was used now. */
export async function recordApiKeyUse(db: ReadDb, keyId: string): Promise<void> {
  await db.query(`UPDATE api_keys SET last_used_at = now() WHERE id = $1`, [keyId]);
}

/** The organization's API keys (revoked and expired ones too), newest first. */
export async function apiKeysOf(db: Db, organizationId: string): Promise<ApiKey[]> {
  return db.apiKey.findMany({ where: { organizationId }, orderBy: { createdAt: 'desc' } });
}

/** The organization's API key, or null (another organization's id finds nothing). */
export async function apiKeyOf(db: Db, organizationId: string, id: string): Promise<ApiKey | null> {
  return db.apiKey.findFirst({ where: { id, organizationId } });
}

/** Revokes an API key from `now`: it answers 401 from then on. */
export async function revokeApiKey(db: Db, id: string, now = new Date()): Promise<void> {
  await db.apiKey.update({ where: { id }, data: { revokedAt: now } });
}
