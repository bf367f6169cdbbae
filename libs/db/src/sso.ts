import { createHash, randomBytes } from 'node:crypto';
import { openWithKeyring, type SecretKeyring, sealWithKeyring } from '@zw/secrets';
import type { Db } from './db-client.js';
import type { Role, Session, SsoConfig, User } from './generated/prisma/client.js';
import { strongestRole } from './roles.js';
import type { ReadDb } from './read-db.js';

/** One group of the identity provider and the role it gives. */
export interface RoleMapping {
  group: string;
  role: Role;
}

/** An organization's SSO settings as the API and the sign-in flow use them (the client secret opened). */
export interface SsoSettings {
  organizationId: string;
  issuer: string;
  clientId: string;
  /** Null for a public client (PKCE alone), or when the keyring cannot open it (`secretProblem` says why). */
  clientSecret: string | null;
  secretProblem: string | null;
  hasClientSecret: boolean;
  audience: string;
  groupsClaim: string;
  roleMappings: RoleMapping[];
  defaultRole: Role | null;
  enabled: boolean;
  updatedAt: Date;
}

/** The associated data an SSO client secret is sealed with: it opens only as this organization's client secret. */
function clientSecretContext(organizationId: string): string {
  return `sso-config.client-secret:${organizationId}`;
}

function settingsOf(row: SsoConfig, keyring: SecretKeyring | null): SsoSettings {
  const sealed = row.clientSecretSealed;
  const opened = sealed && keyring ? openWithKeyring(keyring, sealed, clientSecretContext(row.organizationId)) : null;
  return {
    organizationId: row.organizationId,
    issuer: row.issuer,
    clientId: row.clientId,
    clientSecret: opened,
    secretProblem:
      sealed && opened === null
        ? 'the client secret cannot be decrypted (the secret keyring is missing the key it was sealed with): restore that key, or set the secret again'
        : null,
    hasClientSecret: sealed !== null,
    audience: row.audience,
    groupsClaim: row.groupsClaim,
    roleMappings: row.roleMappings as unknown as RoleMapping[],
    defaultRole: row.defaultRole,
    enabled: row.enabled,
    updatedAt: row.updatedAt,
  };
}

export async function findSsoSettings(
  db: Db,
  organizationId: string,
  keyring: SecretKeyring | null,
): Promise<SsoSettings | null> {
  const row = await db.ssoConfig.findUnique({ where: { organizationId } });
  return row ? settingsOf(row, keyring) : null;
}

/** The enabled SSO settings of an organization by its slug (a sign-in URL names the organization so). */
export async function findSsoSettingsBySlug(
  db: Db,
  slug: string,
  keyring: SecretKeyring | null,
): Promise<{ organization: { id: string; slug: string; name: string }; settings: SsoSettings | null } | null> {
  const organization = await db.organization.findUnique({
    where: { slug },
    select: { id: true, slug: true, name: true, ssoConfig: true },
  });
  if (!organization) return null;
  const { ssoConfig, ...rest } = organization;
  return { organization: rest, settings: ssoConfig ? settingsOf(ssoConfig, keyring) : null };
}

/** The enabled settings that accept tokens of this issuer for one of these audiences (at most one: unique). */
export async function findSsoSettingsForToken(
  db: Db,
  issuer: string,
  audiences: readonly string[],
  keyring: SecretKeyring | null,
): Promise<SsoSettings | null> {
  if (audiences.length === 0) return null;
  const row = await db.ssoConfig.findFirst({ where: { issuer, audience: { in: [...audiences] }, enabled: true } });
  return row ? settingsOf(row, keyring) : null;
}

export interface SaveSsoSettingsInput {
  issuer: string;
  clientId: string;
  /** A new secret; undefined keeps the stored one, null removes it (a public client). */
  clientSecret?: string | null;
  audience: string;
  groupsClaim: string;
  roleMappings: RoleMapping[];
  defaultRole: Role | null;
  enabled: boolean;
}

/** Creates or replaces an organization's SSO settings, sealing a new client secret with the keyring's current key. */
export async function saveSsoSettings(
  db: Db,
  organizationId: string,
  input: SaveSsoSettingsInput,
  keyring: SecretKeyring | null,
): Promise<SsoConfig> {
  const { clientSecret, ...plain } = input;
  const secret =
    clientSecret === undefined
      ? {}
      : clientSecret === null
        ? { clientSecretSealed: null, clientSecretKeyId: null }
        : {
            clientSecretSealed: sealWithKeyring(keyring!, clientSecret, clientSecretContext(organizationId)),
            clientSecretKeyId: keyring!.currentId,
          };
  const data = { ...plain, roleMappings: plain.roleMappings as unknown as object[], ...secret };
  return db.ssoConfig.upsert({
    where: { organizationId },
    create: { organizationId, ...data },
    update: data,
  });
}

/** The role a person's (or a token's) groups give under these settings; null: none, and no default. */
export function roleOfGroups(settings: Pick<SsoSettings, 'roleMappings' | 'defaultRole'>, groups: readonly string[]) {
  const given = new Set(groups);
  return (
    strongestRole(settings.roleMappings.filter((mapping) => given.has(mapping.group)).map((m) => m.role)) ??
    settings.defaultRole
  );
}

/** The groups a claim holds: an array of strings, or one string (some providers send a single group so). */
export function groupsOfClaim(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((entry): entry is string => typeof entry === 'string');
  return [];
}

// ─── Sign-in attempts ───────────────────────────────────────────────────────────────────────────

function sha256(text: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(createHash('sha256').update(text, 'utf8').digest());
}

export interface SignInAttemptInput {
  state: string;
  organizationId: string;
  codeVerifier: string;
  nonce: string;
  returnTo: string;
  expiresAt: Date;
}

export async function recordSignInAttempt(db: Db, input: SignInAttemptInput): Promise<void> {
  const { state, ...rest } = input;
  await db.signInAttempt.create({ data: { stateHash: sha256(state), ...rest } });
}

/** Takes (reads and deletes, once) the unexpired attempt of this state; null when there is none. */
export async function takeSignInAttempt(db: Db, state: string, now = new Date()) {
  const rows = await db.$queryRaw<
    { organization_id: string; code_verifier: string; nonce: string; return_to: string; expires_at: Date }[]
  >`DELETE FROM sign_in_attempts WHERE state_hash = ${sha256(state)}
     RETURNING organization_id::text, code_verifier, nonce, return_to, expires_at`;
  const row = rows[0];
  if (!row || row.expires_at <= now) return null;
  return {
    organizationId: row.organization_id,
    codeVerifier: row.code_verifier,
    nonce: row.nonce,
    returnTo: row.return_to,
  };
}

/** Deletes expired sign-in attempts; returns how many. */
export async function pruneSignInAttempts(db: Db, now = new Date()): Promise<number> {
  return db.signInAttempt.deleteMany({ where: { expiresAt: { lt: now } } }).then((result) => result.count);
}

// ─── Members and sessions ───────────────────────────────────────────────────────────────────────

export interface SignedInPerson {
  organizationId: string;
  subject: string;
  email: string | null;
  name: string | null;
  role: Role;
  groups: string[];
}

/** Records a person's sign-in (creating the member on the first): their identity, groups and role now. */
export async function upsertMember(db: Db, person: SignedInPerson, now = new Date()): Promise<User> {
  const { organizationId, subject, ...details } = person;
  return db.user.upsert({
    where: { organizationId_subject: { organizationId, subject } },
    create: { organizationId, subject, ...details, lastSignInAt: now },
    update: { ...details, lastSignInAt: now },
  });
}

/** Session tokens are 256 random bits; the cookie carries the token, the row its SHA-256. */
export function hashSessionToken(token: string): Uint8Array<ArrayBuffer> {
  return sha256(token);
}

export async function createSession(
  db: Db,
  input: { organizationId: string; userId: string; role: Role; expiresAt: Date; clientAddress: string | null },
): Promise<{ session: Session; token: string }> {
  const token = randomBytes(32).toString('base64url');
  const session = await db.session.create({ data: { ...input, tokenHash: hashSessionToken(token) } });
  return { session, token };
}

/** Ends one session (sign-out); false when it was already ended. */
export async function revokeSession(db: Db, sessionId: string, now = new Date()): Promise<boolean> {
  const { count } = await db.session.updateMany({
    where: { id: sessionId, revokedAt: null },
    data: { revokedAt: now },
  });
  return count > 0;
}

/** Ends every open session of a member (an admin signs them out everywhere, or disables them). */
export async function revokeMemberSessions(db: Db, userId: string, now = new Date()): Promise<number> {
  const { count } = await db.session.updateMany({
    where: { userId, revokedAt: null, expiresAt: { gt: now } },
    data: { revokedAt: now },
  });
  return count;
}

/** Deletes sessions that ended before `before`; returns how many. */
export async function pruneSessions(db: Db, before: Date): Promise<number> {
  return db.session.deleteMany({ where: { expiresAt: { lt: before } } }).then((result) => result.count);
}

/** A session as authentication needs it: whose, which organization, which role, until when. */
export interface SessionIdentity {
  sessionId: string;
  organizationId: string;
  userId: string;
  subject: string;
  email: string | null;
  name: string | null;
  role: Role;
  expiresAt: Date;
  revoked: boolean;
  /** The member was disabled by an admin. */
  disabled: boolean;
}

/** The session whose cookie token hashes to `tokenHash` (ended ones included, so callers can say so), or null. */
export async function sessionByTokenHash(db: ReadDb, tokenHash: Uint8Array): Promise<SessionIdentity | null> {
  const [row] = await db.query<{
    id: string;
    organization_id: string;
    user_id: string;
    subject: string;
    email: string | null;
    name: string | null;
    role: Role;
    expires_at: Date;
    revoked: boolean;
    disabled: boolean;
  }>(
    `SELECT s.id::text, s.organization_id::text, s.user_id::text, u.subject, u.email, u.name, s.role::text AS role,
            s.expires_at, s.revoked_at IS NOT NULL AS revoked, u.disabled_at IS NOT NULL AS disabled
       FROM sessions s JOIN users u ON u.id = s.user_id
      WHERE s.token_hash = $1`,
    [tokenHash],
  );
  return row
    ? {
        sessionId: row.id,
        organizationId: row.organization_id,
        userId: row.user_id,
        subject: row.subject,
        email: row.email,
        name: row.name,
        role: row.role,
        expiresAt: row.expires_at,
        revoked: row.revoked,
        disabled: row.disabled,
      }
    : null;
}

/** A member with the expiry of each of its open sessions, latest first. */
export type MemberRow = User & { sessions: Pick<Session, 'expiresAt'>[] };

/**
 * The organization's members (people who signed in through its identity provider), latest sign-in first,
 * at most 1,000, each with its sessions still open at `now`.
 */
export async function membersOf(db: Db, organizationId: string, now = new Date()): Promise<MemberRow[]> {
  return db.user.findMany({
    where: { organizationId },
    orderBy: [{ lastSignInAt: 'desc' }, { id: 'desc' }],
    include: {
      sessions: {
        where: { revokedAt: null, expiresAt: { gt: now } },
        select: { expiresAt: true },
        orderBy: { expiresAt: 'desc' },
      },
    },
    take: 1000,
  });
}

/** Removes the organization's SSO settings; false when it had none. */
export async function deleteSsoSettings(db: Db, organizationId: string): Promise<boolean> {
  const { count } = await db.ssoConfig.deleteMany({ where: { organizationId } });
  return count > 0;
}

/** Ends every session of the organization not ended yet; returns how many. */
export async function revokeOrganizationSessions(db: Db, organizationId: string, now = new Date()): Promise<number> {
  const { count } = await db.session.updateMany({
    where: { organizationId, revokedAt: null },
    data: { revokedAt: now },
  });
  return count;
}

/** The organization's member, or null (another organization's id finds nothing). */
export async function memberOf(db: Db, organizationId: string, id: string): Promise<User | null> {
  return db.user.findFirst({ where: { id, organizationId } });
}

/** Disables a member (from `now`) or enables it again; the member as it is then. */
export async function setMemberDisabled(db: Db, id: string, disabled: boolean, now = new Date()): Promise<User> {
  return db.user.update({ where: { id }, data: { disabledAt: disabled ? now : null } });
}
