import { type PrismaClient, withIntervalZones } from '@zw/db';

/** The whole history of a cluster, in a form that compares across clusters. */
export async function historyOf(prisma: PrismaClient, clusterId: string) {
  const intervals = await withIntervalZones(
    prisma,
    await prisma.serviceInterval.findMany({
      where: { clusterId },
      include: { service: { select: { namespace: true, name: true } } },
    }),
  );
  const summaries = await prisma.snapshotSummary.findMany({ where: { clusterId }, orderBy: { capturedAt: 'asc' } });
  return {
    intervals: intervals
      .map((i) =>
        JSON.stringify([
          i.service.namespace,
          i.service.name,
          i.validFrom.toISOString(),
          i.validTo?.toISOString() ?? null,
          String(i.stateHash),
          i.routing,
          i.hintState,
          i.hintReason,
          i.zones,
          i.crossZoneWithoutHints,
          i.crossZoneWithHints,
          i.fixesHash ? Buffer.from(i.fixesHash).toString('hex') : null,
          i.fixFraction,
        ]),
      )
      .sort(),
    summaries: summaries.map(({ snapshotId: _id, clusterId: _c, ...rest }) => rest),
  };
}

/**
 * The recommended fixes of every Service of a cluster at instant `at`, as stored (the intervals holding
 * then name them, service_fix_contents holds them), by `namespace/name`.
 */
export async function fixesAt(prisma: PrismaClient, clusterId: string, at: Date): Promise<Map<string, unknown>> {
  const rows = await prisma.$queryRaw<{ key: string; fixes: unknown }[]>`
    SELECT s.namespace || '/' || s.name AS key, c.fixes
      FROM service_intervals i
      JOIN cluster_services s ON s.id = i.service_id
      JOIN service_fix_contents c ON c.cluster_id = i.cluster_id AND c.hash = i.fixes_hash
     WHERE i.cluster_id = ${clusterId}::uuid AND i.valid_from <= ${at}
       AND (i.valid_to IS NULL OR i.valid_to > ${at})`;
  return new Map(rows.map((row) => [row.key, row.fixes]));
}
