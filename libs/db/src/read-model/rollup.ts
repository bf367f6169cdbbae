import type { Db } from '../db-client.js';
import { Prisma } from '../generated/prisma/client.js';

/**
 * Effective monthly traffic of a Service interval `i` of Service `s`: the value set through the API,
 * else the volume the cluster's traffic source measured, else what the snapshot gave (annotation, else
 * the per-endpoint default), as core's monthlyTrafficGb orders them.
 */
export const EFFECTIVE_TRAFFIC_SQL = 'COALESCE(s.monthly_traffic_gb, s.measured_traffic_gb, i.traffic_gb)';

/**
 * The measured share of Service `s`'s bytes that crossed zones, when the cluster's traffic source gave
 * one (core's usableShare: a fraction in [0, 1]); it replaces the model's share as routed today
 * (withHints), as core's serviceCost does. Null when not measured.
 */
export const MEASURED_SHARE_SQL =
  'CASE WHEN s.measured_cross_zone >= 0 AND s.measured_cross_zone <= 1 THEN s.measured_cross_zone END';

/**
 * Interval `i` of Service `s` as routed: the measured share crossing zones when there is one, else the
 * model's withHints fraction; and an opportunity's drop from it to the `topology-mode: Auto` preview.
 * (The worker's roll-up rows, written per interval without the Service, keep the model's; queries over
 * them apply the measured share, see the savings read model.)
 */
export const AS_ROUTED_FRACTION_SQL = `COALESCE(${MEASURED_SHARE_SQL}, i.cross_zone_with_hints, 0)`;
export const AS_ROUTED_MISSED_FRACTION_SQL = `(${AS_ROUTED_FRACTION_SQL} - i.preview_cross_zone)`;

/** A Service whose volume and today's share are both measured: its figures rest on no model volume or share. */
export const FULLY_MEASURED_SQL = `(s.monthly_traffic_gb IS NULL AND s.measured_traffic_gb IS NOT NULL AND (${MEASURED_SHARE_SQL}) IS NOT NULL)`;

/** Where the effective traffic came from, named like core's TrafficSource. */
export const TRAFFIC_SOURCE_SQL =
  "CASE WHEN s.monthly_traffic_gb IS NOT NULL THEN 'api' WHEN s.measured_traffic_gb IS NOT NULL THEN 'measured' ELSE i.traffic_source END";

/** The Service's volume is the per-endpoint default (neither given, measured nor annotated). */
export const ESTIMATED_TRAFFIC_SQL = `(${TRAFFIC_SOURCE_SQL}) = 'default-per-endpoint'`;

/**
 * A Service is an opportunity when it has no topology routing and enabling `topology-mode: Auto` would
 * populate its hints (core's rankOpportunities); what it would save is its traffic times the drop of its
 * cross-zone fraction from today's (`withHints`) to the preview's. The analysis gives no preview to a
 * Service the annotation cannot help (slices not written by the EndpointSlice controller, headless or
 * ExternalName, a data plane that ignores hints); the managed-by test says the first case again here.
 */
export const OPPORTUNITY_SQL =
  "i.routing = 'None' AND i.preview_state = 'populated' AND COALESCE(i.managed_by, 'endpointslice-controller') = 'endpointslice-controller'";
export const MISSED_FRACTION_SQL = '(COALESCE(i.cross_zone_with_hints, 0) - i.preview_cross_zone)';

/**
 * A Service that asks for topology routing whose hints the controller refused (`hintState: removed`):
 * what it has at stake is every crossing it still makes (its cross-zone fraction as routed today), the
 * most that removing the cause could save. History holds no "hints as they would be had the cause been
 * fixed", so this is an upper bound, not an exact counterfactual like the opportunities'. A Service whose
 * data path ignores hints (`honours_hints` false) has nothing at stake: hints that held would change nothing.
 */
export const REFUSED_HINTS_SQL = "i.routing <> 'None' AND i.hint_state = 'removed' AND COALESCE(i.honours_hints, true)";
export const AT_STAKE_FRACTION_SQL = 'COALESCE(i.cross_zone_with_hints, 0)';

/**
 * The monthly roll-up of a cluster at one instant, as one row named like the summary's columns: sums over
 * the Services' intervals covering that instant, with today's API traffic values. Written into the summary
 * when its snapshot is recorded, in the same statement (see the worker's history writer).
 *
 * As routed today, a Service crosses zones by its measured share when its traffic source gave one
 * (MEASURED_SHARE_SQL), else by the model's withHints fraction; so do its missed and at-stake GB.
 *
 * Decision: the sums run in numeric, exact whatever order Postgres scans the rows in, so a snapshot's
 * figures are the same bit for bit whether the snapshots of a cluster were recorded in order or not.
 */
export function summaryRollupSql(clusterId: string, capturedAt: Date): Prisma.Sql {
  return Prisma.sql`
    SELECT COALESCE(sum(t.gb::numeric), 0)::float8 AS traffic_gb,
           COALESCE(sum((t.gb * COALESCE(i.cross_zone_without_hints, 0))::numeric), 0)::float8
             AS cross_zone_gb_without_hints,
           COALESCE(sum((t.gb * t.today)::numeric), 0)::float8 AS cross_zone_gb_with_hints,
           COALESCE(sum((t.gb * (t.today - i.preview_cross_zone))::numeric)
                    FILTER (WHERE ${Prisma.raw(OPPORTUNITY_SQL)}), 0)::float8 AS missed_gb,
           count(*) FILTER (WHERE ${Prisma.raw(OPPORTUNITY_SQL)})::int AS opportunities,
           count(*) FILTER (WHERE ${Prisma.raw(ESTIMATED_TRAFFIC_SQL)})::int AS services_estimated_traffic,
           count(*) FILTER (WHERE ${Prisma.raw(REFUSED_HINTS_SQL)})::int AS services_at_stake,
           COALESCE(sum(t.gb::numeric) FILTER (WHERE ${Prisma.raw(REFUSED_HINTS_SQL)}), 0)::float8 AS at_stake_traffic_gb,
           COALESCE(sum((t.gb * t.today)::numeric)
                    FILTER (WHERE ${Prisma.raw(REFUSED_HINTS_SQL)}), 0)::float8 AS at_stake_gb,
           count(*) FILTER (WHERE ${Prisma.raw(REFUSED_HINTS_SQL)} AND ${Prisma.raw(ESTIMATED_TRAFFIC_SQL)})::int
             AS services_at_stake_estimated
      FROM service_intervals i
      JOIN cluster_services s ON s.id = i.service_id
     CROSS JOIN LATERAL (SELECT ${Prisma.raw(EFFECTIVE_TRAFFIC_SQL)} AS gb,
                               ${Prisma.raw(AS_ROUTED_FRACTION_SQL)} AS today) t
     WHERE i.cluster_id = ${clusterId}::uuid AND i.valid_from <= ${capturedAt}::timestamptz
       AND (i.valid_to IS NULL OR i.valid_to > ${capturedAt}::timestamptz)`;
}

/** Recomputes the monthly roll-up of the summary of the snapshot captured at `capturedAt`. */
export async function refreshSummaryRollup(db: Db, clusterId: string, capturedAt: Date): Promise<void> {
  await db.$executeRaw`
    UPDATE snapshot_summaries m
       SET traffic_gb = r.traffic_gb, cross_zone_gb_without_hints = r.cross_zone_gb_without_hints,
           cross_zone_gb_with_hints = r.cross_zone_gb_with_hints, missed_gb = r.missed_gb,
           opportunities = r.opportunities, services_estimated_traffic = r.services_estimated_traffic,
           services_at_stake = r.services_at_stake, at_stake_traffic_gb = r.at_stake_traffic_gb,
           at_stake_gb = r.at_stake_gb, services_at_stake_estimated = r.services_at_stake_estimated
      FROM (${summaryRollupSql(clusterId, capturedAt)}) r
     WHERE m.cluster_id = ${clusterId}::uuid AND m.captured_at = ${capturedAt}::timestamptz`;
}

/** Recomputes the roll-up of the cluster's newest summary (after an API traffic value changed). */
export async function refreshLatestRollup(db: Db, clusterId: string): Promise<void> {
  const [latest] = await db.$queryRaw<{ captured_at: Date }[]>`
    SELECT captured_at FROM snapshot_summaries WHERE cluster_id = ${clusterId}::uuid
     ORDER BY captured_at DESC LIMIT 1`;
  if (latest) await refreshSummaryRollup(db, clusterId, latest.captured_at);
}
