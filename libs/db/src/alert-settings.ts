/**
 * What the alerts API reads: an organization's channels, rules (with their open alerts), alerts and
 * delivery log. Every read takes the organization: another organization's id finds nothing.
 */
import type { Db } from './db-client.js';

export const CHANNEL_COLUMNS = {
  id: true,
  name: true,
  kind: true,
  targetHint: true,
  signature: true,
  enabled: true,
  createdAt: true,
  updatedAt: true,
} as const;

export function channelsOf(db: Db, organizationId: string) {
  return db.alertChannel.findMany({
    where: { organizationId },
    select: CHANNEL_COLUMNS,
    orderBy: { createdAt: 'asc' },
  });
}

export function rulesOf(db: Db, organizationId: string) {
  return db.alertRule.findMany({
    where: { organizationId },
    orderBy: { createdAt: 'asc' },
    include: { _count: { select: { alerts: { where: { resolvedAt: null } } } } },
  });
}

export function alertsOf(db: Db, organizationId: string, state: 'open' | 'resolved' | 'all', limit: number) {
  const resolved = state === 'open' ? { resolvedAt: null } : state === 'resolved' ? { NOT: { resolvedAt: null } } : {};
  return db.alert.findMany({
    where: { organizationId, ...resolved },
    orderBy: [{ openedAt: 'desc' }, { id: 'desc' }],
    take: limit,
  });
}

export function deliveriesOf(db: Db, organizationId: string, channelId: string | undefined, limit: number) {
  return db.alertDelivery.findMany({
    where: { organizationId, ...(channelId ? { channelId } : {}) },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit,
    include: { channel: { select: { name: true } } },
  });
}

export function deliveryOf(db: Db, organizationId: string, id: string) {
  return db.alertDelivery.findFirst({
    where: { id, organizationId },
    include: { channel: { select: { name: true } } },
  });
}

/** The organization's channel with every column (its sealed target and secret too), or null. */
export function channelOf(db: Db, organizationId: string, id: string) {
  return db.alertChannel.findFirst({ where: { id, organizationId } });
}

/** Whether the organization has this channel. */
export async function hasChannel(db: Db, organizationId: string, id: string): Promise<boolean> {
  return (await db.alertChannel.findFirst({ where: { id, organizationId }, select: { id: true } })) !== null;
}

/** How many of these channels are the organization's. */
export function countOwnedChannels(db: Db, organizationId: string, channelIds: readonly string[]): Promise<number> {
  return db.alertChannel.count({ where: { organizationId, id: { in: [...channelIds] } } });
}

export function ruleOf(db: Db, organizationId: string, id: string) {
  return db.alertRule.findFirst({ where: { id, organizationId } });
}
