import type { PrismaClient } from '@zw/db';

/** The whole history of a cluster, in a form that compares across clusters. */
export async function historyOf(prisma: PrismaClient, clusterId: string) {
  const intervals = await prisma.serviceInterval.findMany({
    where: { clusterId },
    include: { service: { select: { namespace: true, name: true } } },
  });
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
        ]),
      )
      .sort(),
    summaries: summaries.map(({ snapshotId: _id, clusterId: _c, ...rest }) => rest),
  };
}
