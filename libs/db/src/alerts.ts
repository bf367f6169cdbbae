/**
 * Alerts in Postgres: what each rule's condition finds now, the open alerts it is compared with (one open
 * alert per rule and subject: the partial unique index alerts_open_subject), and one delivery row per
 * channel for each alert that opens or resolves. Opening or resolving an alert and creating its
 * deliveries happen in one transaction, so a delivery exists for every event, and only once: a second
 * evaluator (another worker) finds the alert already open or resolved and creates nothing.
 */
import { crossZonePrice } from '@zw/core';
import type { Db } from './db-client.js';
import type { PrismaClient } from './generated/prisma/client.js';
import { openWithKeyring, type SecretKeyring, sealWithKeyring } from '@zw/secrets';

export const ALERT_RULE_KINDS = [
  'hints-lost',
  'drift',
  'savings-missed',
  'agent-stale',
  'traffic-source-failing',
] as const;
export type AlertRuleKindName = (typeof ALERT_RULE_KINDS)[number];
/** The kinds a snapshot can change; the others change with time or with a traffic measurement. */
export const SNAPSHOT_KINDS: readonly AlertRuleKindName[] = ['hints-lost', 'drift', 'savings-missed', 'agent-stale'];

/** Traffic-source statuses that are not a failure (measuring, measured, partly measured, nothing to measure yet). */
const TRAFFIC_OK_STATUSES = ['pending', 'ok', 'partial', 'no-snapshot'];

export interface AlertCondition {
  subject: string;
  clusterId: string | null;
  summary: string;
  /** Dashboard path (PUBLIC_URL is put in front by the sender). */
  path: string;
  details: Record<string, unknown>;
}

export interface RuleRow {
  id: string;
  organizationId: string;
  name: string;
  kind: string;
  threshold: number | null;
  clusterIds: string[];
  channelIds: string[];
  quietStart: string | null;
  quietEnd: string | null;
  timeZone: string;
}

export interface CreatedDelivery {
  id: string;
  notBefore: Date | null;
}

export interface EvaluationOutcome {
  opened: number;
  resolved: number;
  deliveries: CreatedDelivery[];
}

export interface EvaluationScope {
  /** Only this cluster's subjects (after a snapshot of it); all of the rule's clusters when absent. */
  clusterId?: string;
  /** Only rules of these kinds. */
  kinds?: readonly string[];
  now: Date;
  staleAfterSeconds: number;
  /** When a rule's messages may be sent (the end of its quiet hours), null: now. */
  notBefore: (rule: RuleRow, now: Date) => Date | null;
}

const pathOfService = (clusterId: string, namespace: string, name: string) =>
  `/clusters/${clusterId}/services/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`;

interface ClusterScope {
  organizationId: string;
  clusterIds: string[] | null;
}

/** What the rule's condition finds now, over the clusters in scope. */
export async function ruleConditions(db: Db, rule: RuleRow, scope: EvaluationScope): Promise<AlertCondition[]> {
  let clusters: string[] | null = rule.clusterIds.length > 0 ? rule.clusterIds : null;
  if (scope.clusterId) {
    if (clusters && !clusters.includes(scope.clusterId)) return [];
    clusters = [scope.clusterId];
  }
  const where: ClusterScope = { organizationId: rule.organizationId, clusterIds: clusters };
  switch (rule.kind) {
    case 'hints-lost':
      return hintsLost(db, where);
    case 'drift':
      return drift(db, where);
    case 'savings-missed':
      return savingsMissed(db, where, rule.threshold ?? 0);
    case 'agent-stale':
      return agentStale(db, where, scope.now, scope.staleAfterSeconds);
    case 'traffic-source-failing':
      return trafficFailing(db, where);
    default:
      return [];
  }
}

/**
 * Services whose hints the controller removed after they had been populated (the newest state other than
 * `removed` before this one was `populated`): a regression, not a Service that never had hints.
 */
async function hintsLost(db: Db, scope: ClusterScope): Promise<AlertCondition[]> {
  const rows = await db.$queryRaw<
    { cluster_id: string; cluster_name: string; namespace: string; name: string; reason: string | null }[]
  >`
    SELECT c.id::text AS cluster_id, c.name AS cluster_name, s.namespace, s.name, cur.hint_reason AS reason
      FROM clusters c
      JOIN service_intervals cur ON cur.cluster_id = c.id AND cur.valid_to IS NULL AND cur.hint_state = 'removed'
      JOIN cluster_services s ON s.id = cur.service_id
      JOIN LATERAL (SELECT prev.hint_state FROM service_intervals prev
                     WHERE prev.service_id = cur.service_id AND prev.valid_from < cur.valid_from
                       AND prev.hint_state <> 'removed'
                     ORDER BY prev.valid_from DESC LIMIT 1) before ON before.hint_state = 'populated'
     WHERE c.organization_id = ${scope.organizationId}::uuid
       AND (${scope.clusterIds}::uuid[] IS NULL OR c.id = ANY(${scope.clusterIds}::uuid[]))`;
  return rows.map((row) => ({
    subject: `service:${row.cluster_id}/${row.namespace}/${row.name}`,
    clusterId: row.cluster_id,
    summary: `${row.namespace}/${row.name} in ${row.cluster_name} lost its topology hints${row.reason ? `: ${row.reason}` : ''}`,
    path: pathOfService(row.cluster_id, row.namespace, row.name),
    details: { cluster: row.cluster_name, namespace: row.namespace, service: row.name, reason: row.reason },
  }));
}

interface NewestSummary {
  cluster_id: string;
  cluster_name: string;
  cloud: string;
  region: string | null;
  price: string | null;
  organization_price: string | null;
  drift: number;
  missed_gb: number | null;
  captured_at: Date;
}

function newestSummaries(db: Db, scope: ClusterScope): Promise<NewestSummary[]> {
  return db.$queryRaw<NewestSummary[]>`
    SELECT c.id::text AS cluster_id, c.name AS cluster_name, c.cloud::text AS cloud, c.region,
           c.cross_zone_price_per_gb::text AS price, o.cross_zone_price_per_gb::text AS organization_price,
           ss.services_with_drift AS drift, ss.missed_gb, ss.captured_at
      FROM clusters c
      JOIN organizations o ON o.id = c.organization_id
      JOIN LATERAL (SELECT * FROM snapshot_summaries x WHERE x.cluster_id = c.id
                     ORDER BY x.captured_at DESC LIMIT 1) ss ON true
     WHERE c.organization_id = ${scope.organizationId}::uuid
       AND (${scope.clusterIds}::uuid[] IS NULL OR c.id = ANY(${scope.clusterIds}::uuid[]))`;
}

async function drift(db: Db, scope: ClusterScope): Promise<AlertCondition[]> {
  return (await newestSummaries(db, scope))
    .filter((row) => row.drift > 0)
    .map((row) => ({
      subject: `cluster:${row.cluster_id}`,
      clusterId: row.cluster_id,
      summary: `${row.drift} Service${row.drift === 1 ? '' : 's'} in ${row.cluster_name} carry hints that differ from what the controller computes (drift)`,
      path: `/clusters/${row.cluster_id}`,
      details: { cluster: row.cluster_name, servicesWithDrift: row.drift },
    }));
}

/**
 * Clusters whose missed savings (cross-zone GB per month that topology routing would save, times the
 * cluster's price) exceed the threshold. Estimated: the GB come from the traffic values known, the price
 * as every other figure takes it: the cluster's own, the organization's, or the catalogue's (libs/core
 * savings.ts crossZonePrice).
 */
async function savingsMissed(db: Db, scope: ClusterScope, threshold: number): Promise<AlertCondition[]> {
  const conditions: AlertCondition[] = [];
  for (const row of await newestSummaries(db, scope)) {
    if (row.missed_gb === null) continue;
    const price = crossZonePrice({
      cloud: row.cloud,
      region: row.region,
      overridePerGb: row.price === null ? null : Number(row.price),
      organizationOverridePerGb: row.organization_price === null ? null : Number(row.organization_price),
    });
    const amount = row.missed_gb * price.pricePerGb;
    if (!(amount > threshold)) continue;
    conditions.push({
      subject: `cluster:${row.cluster_id}`,
      clusterId: row.cluster_id,
      summary: `${row.cluster_name} misses an estimated ${price.currency} ${amount.toFixed(2)} a month of savings (above ${threshold.toFixed(2)})`,
      path: `/clusters/${row.cluster_id}`,
      details: {
        cluster: row.cluster_name,
        missedGbPerMonth: row.missed_gb,
        estimatedMonthly: { amount: Number(amount.toFixed(2)), currency: price.currency, estimated: true },
        pricePerGb: price.pricePerGb,
        priceSource: price.source,
        threshold,
      },
    });
  }
  return conditions;
}

async function agentStale(
  db: Db,
  scope: ClusterScope,
  now: Date,
  staleAfterSeconds: number,
): Promise<AlertCondition[]> {
  const rows = await db.$queryRaw<{ cluster_id: string; cluster_name: string; captured_at: Date }[]>`
    SELECT c.id::text AS cluster_id, c.name AS cluster_name, ls.captured_at
      FROM clusters c
      JOIN LATERAL (SELECT s.captured_at FROM snapshots s WHERE s.cluster_id = c.id
                     ORDER BY s.captured_at DESC LIMIT 1) ls ON true
     WHERE c.organization_id = ${scope.organizationId}::uuid
       AND (${scope.clusterIds}::uuid[] IS NULL OR c.id = ANY(${scope.clusterIds}::uuid[]))`;
  return rows
    .filter((row) => (now.getTime() - row.captured_at.getTime()) / 1000 > staleAfterSeconds)
    .map((row) => ({
      subject: `cluster:${row.cluster_id}`,
      clusterId: row.cluster_id,
      summary: `The agent of ${row.cluster_name} has sent nothing since ${row.captured_at.toISOString()}`,
      path: `/clusters/${row.cluster_id}`,
      details: { cluster: row.cluster_name, lastSnapshotCapturedAt: row.captured_at.toISOString(), staleAfterSeconds },
    }));
}

async function trafficFailing(db: Db, scope: ClusterScope): Promise<AlertCondition[]> {
  const rows = await db.$queryRaw<
    { cluster_id: string; cluster_name: string; status: string; last_error: string | null; failures: number }[]
  >`
    SELECT c.id::text AS cluster_id, c.name AS cluster_name, t.status, t.last_error, t.consecutive_failures AS failures
      FROM clusters c JOIN traffic_sources t ON t.cluster_id = c.id
     WHERE c.organization_id = ${scope.organizationId}::uuid
       AND (${scope.clusterIds}::uuid[] IS NULL OR c.id = ANY(${scope.clusterIds}::uuid[]))
       AND t.status <> ALL(${TRAFFIC_OK_STATUSES}::text[])`;
  return rows.map((row) => ({
    subject: `cluster:${row.cluster_id}`,
    clusterId: row.cluster_id,
    summary: `The traffic source of ${row.cluster_name} is failing (${row.status})${row.last_error ? `: ${row.last_error.slice(0, 200)}` : ''}`,
    path: `/clusters/${row.cluster_id}`,
    details: { cluster: row.cluster_name, status: row.status, consecutiveFailures: row.failures },
  }));
}

/** The enabled rules of an organization (or of all), of the given kinds. */
export function enabledRules(db: Db, organizationId: string | null, kinds?: readonly string[]): Promise<RuleRow[]> {
  return db.alertRule.findMany({
    where: {
      enabled: true,
      ...(organizationId ? { organizationId } : {}),
      ...(kinds ? { kind: { in: [...kinds] } } : {}),
    },
    select: {
      id: true,
      organizationId: true,
      name: true,
      kind: true,
      threshold: true,
      clusterIds: true,
      channelIds: true,
      quietStart: true,
      quietEnd: true,
      timeZone: true,
    },
    orderBy: { id: 'asc' },
  });
}

/**
 * Compares one rule's conditions with its open alerts (in the scope: one cluster, or all) and opens,
 * resolves and creates deliveries in one transaction. Returns the deliveries to enqueue.
 */
export async function evaluateRule(
  db: PrismaClient,
  rule: RuleRow,
  scope: EvaluationScope,
): Promise<EvaluationOutcome> {
  const conditions = await ruleConditions(db, rule, scope);
  const notBefore = scope.notBefore(rule, scope.now);
  return db.$transaction(async (tx) => {
    const open = await tx.alert.findMany({
      where: { ruleId: rule.id, resolvedAt: null, ...(scope.clusterId ? { clusterId: scope.clusterId } : {}) },
      select: { id: true, subject: true },
    });
    const current = new Set(conditions.map((condition) => condition.subject));
    const openSubjects = new Set(open.map((alert) => alert.subject));
    const outcome: EvaluationOutcome = { opened: 0, resolved: 0, deliveries: [] };
    const opened: string[] = [];
    for (const condition of conditions) {
      if (openSubjects.has(condition.subject)) continue;
      const id = await openAlert(tx, rule.organizationId, rule.id, rule.kind, condition, scope.now);
      if (id !== null) opened.push(id); // null: opened meanwhile by another evaluator
    }
    const cleared = open.filter((alert) => !current.has(alert.subject)).map((alert) => alert.id);
    const resolved = await resolveAlerts(tx, cleared, scope.now);
    outcome.opened = opened.length;
    outcome.resolved = resolved.length;
    for (const [event, ids] of [
      ['opened', opened],
      ['resolved', resolved],
    ] as const) {
      outcome.deliveries.push(...(await tellChannels(tx, rule, ids, event, notBefore)));
    }
    return outcome;
  });
}

/**
 * Decision: an evaluation of one rule that opens (or resolves) more than this many alerts tells each
 * channel once, in one grouped message listing them (500 Services losing their hints to one node without
 * a zone is one event to a person, not 500 messages). Each alert is still its own row, opened and
 * resolved once per subject.
 */
export const ALERT_GROUP_ABOVE = 3;

/** The deliveries of alerts that opened or resolved together: one per alert, or one group per channel. */
async function tellChannels(
  tx: Db,
  rule: RuleRow,
  alertIds: string[],
  event: 'opened' | 'resolved',
  notBefore: Date | null,
): Promise<CreatedDelivery[]> {
  if (alertIds.length > ALERT_GROUP_ABOVE) {
    return createGroupDeliveries(tx, rule.organizationId, alertIds, event, rule.channelIds, notBefore);
  }
  const deliveries: CreatedDelivery[] = [];
  for (const id of alertIds) {
    deliveries.push(...(await createDeliveries(tx, rule.organizationId, id, event, rule.channelIds, notBefore)));
  }
  return deliveries;
}

/** One grouped delivery per enabled channel of the organization among `channelIds`. */
async function createGroupDeliveries(
  tx: Db,
  organizationId: string,
  alertIds: string[],
  event: 'opened' | 'resolved',
  channelIds: string[],
  notBefore: Date | null,
): Promise<CreatedDelivery[]> {
  if (channelIds.length === 0) return [];
  const rows = await tx.$queryRaw<{ id: string }[]>`
    INSERT INTO alert_deliveries (id, organization_id, channel_id, alert_ids, event, not_before)
    SELECT gen_random_uuid(), ${organizationId}::uuid, ch.id, ${alertIds}::uuid[], ${event}, ${notBefore}::timestamptz
      FROM alert_channels ch
     WHERE ch.organization_id = ${organizationId}::uuid AND ch.enabled AND ch.id = ANY(${channelIds}::uuid[])
    RETURNING id::text`;
  return rows.map((row) => ({ id: row.id, notBefore }));
}

/** Inserts an open alert unless one is open for the same rule (or kind) and subject; its id, or null. */
async function openAlert(
  tx: Db,
  organizationId: string,
  ruleId: string | null,
  kind: string,
  condition: AlertCondition,
  now: Date,
): Promise<string | null> {
  const rows = await tx.$queryRaw<{ id: string }[]>`
    INSERT INTO alerts (id, organization_id, rule_id, kind, subject, cluster_id, summary, path, details, opened_at)
    VALUES (gen_random_uuid(), ${organizationId}::uuid, ${ruleId}::uuid, ${kind}, ${condition.subject},
            ${condition.clusterId}::uuid, ${condition.summary}, ${condition.path},
            ${JSON.stringify(condition.details)}::jsonb, ${now})
    ON CONFLICT (organization_id, (COALESCE(rule_id::text, kind)), subject) WHERE resolved_at IS NULL DO NOTHING
    RETURNING id::text`;
  return rows[0]?.id ?? null;
}

/** Resolves those still open; the ids this call resolved. */
async function resolveAlerts(tx: Db, ids: string[], now: Date): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await tx.$queryRaw<{ id: string }[]>`
    UPDATE alerts SET resolved_at = ${now} WHERE id = ANY(${ids}::uuid[]) AND resolved_at IS NULL RETURNING id::text`;
  return rows.map((row) => row.id);
}

/** One delivery per enabled channel of the organization among `channelIds`; none twice for one event. */
async function createDeliveries(
  tx: Db,
  organizationId: string,
  alertId: string,
  event: 'opened' | 'resolved',
  channelIds: string[],
  notBefore: Date | null,
): Promise<CreatedDelivery[]> {
  if (channelIds.length === 0) return [];
  const rows = await tx.$queryRaw<{ id: string }[]>`
    INSERT INTO alert_deliveries (id, organization_id, channel_id, alert_id, event, not_before)
    SELECT gen_random_uuid(), ${organizationId}::uuid, ch.id, ${alertId}::uuid, ${event}, ${notBefore}::timestamptz
      FROM alert_channels ch
     WHERE ch.organization_id = ${organizationId}::uuid AND ch.enabled AND ch.id = ANY(${channelIds}::uuid[])
    ON CONFLICT (alert_id, channel_id, event) DO NOTHING
    RETURNING id::text`;
  return rows.map((row) => ({ id: row.id, notBefore }));
}

/**
 * A channel's delivery failed for good: zonewise opens a `channel-failing` alert of its own (once while
 * it lasts) and tells the organization's other enabled channels.
 */
export async function raiseChannelFailing(
  db: PrismaClient,
  channel: { id: string; organizationId: string; name: string },
  error: string,
  now: Date,
): Promise<CreatedDelivery[]> {
  return db.$transaction(async (tx) => {
    const id = await openAlert(
      tx,
      channel.organizationId,
      null,
      'channel-failing',
      {
        subject: `channel:${channel.id}`,
        clusterId: null,
        summary: `Alert channel "${channel.name}" failed to deliver: ${error.slice(0, 200)}`,
        path: '/alerts',
        details: { channel: channel.name, error: error.slice(0, 500) },
      },
      now,
    );
    if (id === null) return [];
    const others = await tx.alertChannel.findMany({
      where: { organizationId: channel.organizationId, enabled: true, NOT: { id: channel.id } },
      select: { id: true },
    });
    return createDeliveries(
      tx,
      channel.organizationId,
      id,
      'opened',
      others.map((other) => other.id),
      null,
    );
  });
}

/** A channel delivered again: its `channel-failing` alert resolves (and the other channels are told). */
export async function clearChannelFailing(
  db: PrismaClient,
  channel: { id: string; organizationId: string },
  now: Date,
): Promise<CreatedDelivery[]> {
  const open = await db.alert.findFirst({
    where: {
      organizationId: channel.organizationId,
      kind: 'channel-failing',
      subject: `channel:${channel.id}`,
      resolvedAt: null,
    },
    select: { id: true },
  });
  if (!open) return [];
  return db.$transaction(async (tx) => {
    const [resolved] = await resolveAlerts(tx, [open.id], now);
    if (!resolved) return [];
    const others = await tx.alertChannel.findMany({
      where: { organizationId: channel.organizationId, enabled: true, NOT: { id: channel.id } },
      select: { id: true },
    });
    return createDeliveries(
      tx,
      channel.organizationId,
      resolved,
      'resolved',
      others.map((other) => other.id),
      null,
    );
  });
}

/** Deliveries left pending (or interrupted while sending) longer than `graceMs`: their jobs may be lost. */
export async function unfinishedDeliveries(db: Db, olderThan: Date, limit = 500): Promise<CreatedDelivery[]> {
  const rows = await db.alertDelivery.findMany({
    where: { status: { in: ['pending', 'sending'] }, createdAt: { lt: olderThan } },
    select: { id: true, notBefore: true },
    orderBy: { createdAt: 'asc' },
    take: limit,
  });
  return rows;
}

/** A channel's target and signing secret, sealed with the keyring (the target URL is a credential too). */
export function sealChannelSecrets(
  keyring: SecretKeyring,
  organizationId: string,
  target: string,
  secret: string | null,
) {
  return {
    targetSealed: sealWithKeyring(keyring, target, targetContext(organizationId)),
    secretSealed: secret === null ? null : sealWithKeyring(keyring, secret, secretContext(organizationId)),
  };
}

/** Associated data: a channel's sealed target or secret opens only as that, in its organization. */
const targetContext = (organizationId: string) => `alert-channel-target:${organizationId}`;
const secretContext = (organizationId: string) => `alert-channel-secret:${organizationId}`;

export type OpenedChannel = { target: string; secret: string | null } | { problem: string };

export function openChannelSecrets(
  keyring: SecretKeyring | null,
  stored: { organizationId: string; targetSealed: Uint8Array; secretSealed: Uint8Array | null },
): OpenedChannel {
  const problem =
    'the channel cannot be decrypted (the secret keyring is missing the key it was sealed with): restore that key, or save the channel again';
  if (!keyring)
    return { problem: 'this deployment has no secret keyring: its operator must set SECRET_ENCRYPTION_KEYS' };
  const target = openWithKeyring(keyring, stored.targetSealed, targetContext(stored.organizationId));
  if (target === null) return { problem };
  if (stored.secretSealed === null) return { target, secret: null };
  const secret = openWithKeyring(keyring, stored.secretSealed, secretContext(stored.organizationId));
  return secret === null ? { problem } : { target, secret };
}
