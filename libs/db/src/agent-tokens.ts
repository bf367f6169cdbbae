import { createHash, randomBytes } from 'node:crypto';
import type { Db } from './db-client.js';
import type { AgentToken } from './generated/prisma/client.js';

/** Agent tokens look like `zwa_<43 base64url chars>`: 256 random bits, recognisable in logs and secret scanners. */
export const AGENT_TOKEN_PREFIX = 'zwa_';
const DISPLAY_PREFIX_LENGTH = AGENT_TOKEN_PREFIX.length + 8;

export interface NewAgentToken {
  /** The plaintext, shown once to whoever created or rotated it; never stored. */
  token: string;
  hash: Uint8Array<ArrayBuffer>;
  prefix: string;
}

export function hashAgentToken(token: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(createHash('sha256').update(token, 'utf8').digest());
}

export function generateAgentToken(): NewAgentToken {
  const token = AGENT_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  return { token, hash: hashAgentToken(token), prefix: token.slice(0, DISPLAY_PREFIX_LENGTH) };
}

/**
 * Gives the cluster a new agent token: creates its first one or rotates the existing one in place, so the
 * previous token stops working at once. Returns the plaintext.
 */
export async function issueAgentToken(db: Db, clusterId: string): Promise<string> {
  const { token, hash, prefix } = generateAgentToken();
  await db.agentToken.upsert({
    where: { clusterId },
    create: { clusterId, tokenHash: hash, tokenPrefix: prefix },
    update: { tokenHash: hash, tokenPrefix: prefix, rotatedAt: new Date() },
  });
  return token;
}

export interface AgentIdentity {
  clusterId: string;
  organizationId: string;
  /** The organization's history retention override (days), if any. */
  historyRetentionDays: number | null;
}

/** The cluster a presented token belongs to, or null. One indexed lookup on the token's hash. */
export async function findClusterByAgentToken(db: Db, token: string): Promise<AgentIdentity | null> {
  if (!token.startsWith(AGENT_TOKEN_PREFIX)) return null;
  const row = await db.agentToken.findUnique({
    where: { tokenHash: hashAgentToken(token) },
    select: {
      clusterId: true,
      cluster: { select: { organizationId: true, organization: { select: { historyRetentionDays: true } } } },
    },
  });
  return row
    ? {
        clusterId: row.clusterId,
        organizationId: row.cluster.organizationId,
        historyRetentionDays: row.cluster.organization.historyRetentionDays,
      }
    : null;
}

/** The display prefixes of every agent token (one per cluster): a token whose prefix is not listed is not valid. */
export async function agentTokenPrefixes(db: Db): Promise<string[]> {
  const rows = await db.agentToken.findMany({ select: { tokenPrefix: true }, distinct: ['tokenPrefix'] });
  return rows.map((row) => row.tokenPrefix);
}

/** The display prefix of a presented token (what {@link agentTokenPrefixes} lists). */
export function agentTokenPrefixOf(token: string): string {
  return token.slice(0, DISPLAY_PREFIX_LENGTH);
}

/** The cluster's agent token row (hash, prefix, when issued and rotated); fails with Prisma's P2025 when it has none. */
export async function agentTokenOf(db: Db, clusterId: string): Promise<AgentToken> {
  return db.agentToken.findUniqueOrThrow({ where: { clusterId } });
}
