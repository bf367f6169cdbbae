/**
 * What the alerts API reads and writes: an organization's channels, rules (with their open alerts), alerts
 * and delivery log. Every read takes the organization: another organization's id finds nothing.
 */
import type { Db } from './db-client.js';
import type { Prisma } from './generated/prisma/client.js';

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

/** A rule's alerts still open, counted. */
const OPEN_ALERTS = { _count: { select: { alerts: { where: { resolvedAt: null } } } } } as const;

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
    include: OPEN_ALERTS,
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

/** Creates a channel (its target and secret sealed by the caller); its columns as the API shows them. P2002: name taken. */
export function createAlertChannel(db: Db, channel: Prisma.AlertChannelUncheckedCreateInput) {
  return db.alertChannel.create({ data: channel, select: CHANNEL_COLUMNS });
}

/** Changes a channel (the caller found it the organization's); its columns as the API shows them. P2002: name taken. */
export function updateAlertChannel(db: Db, id: string, changes: Prisma.AlertChannelUpdateInput) {
  return db.alertChannel.update({ where: { id }, data: changes, select: CHANNEL_COLUMNS });
}

/** Deletes the organization's channel; false when it has no such channel. */
export async function deleteAlertChannel(db: Db, organizationId: string, id: string): Promise<boolean> {
  const { count } = await db.alertChannel.deleteMany({ where: { id, organizationId } });
  return count > 0;
}

/** Creates a rule. P2002: the organization has a rule of that name. */
export function createAlertRule(db: Db, rule: Prisma.AlertRuleUncheckedCreateInput) {
  return db.alertRule.create({ data: rule });
}

/** Changes a rule (the caller found it the organization's); with its open alerts counted. P2002: name taken. */
export function updateAlertRule(db: Db, id: string, changes: Prisma.AlertRuleUpdateInput) {
  return db.alertRule.update({ where: { id }, data: changes, include: OPEN_ALERTS });
}

/** Deletes the organization's rule (its alerts cascade); false when it has no such rule. */
export async function deleteAlertRule(db: Db, organizationId: string, id: string): Promise<boolean> {
  const { count } = await db.alertRule.deleteMany({ where: { id, organizationId } });
  return count > 0;
}
