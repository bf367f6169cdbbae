import type { TransitionRow } from '@zw/reports';
import { describe, expect, it } from 'vitest';
import { reportTransitionRows } from '../src/index.js';
import { useReportHistory, ranges, SERVICES_OF_HISTORY } from './report-history.js';

/**
 * A report's hint-state changes (reportTransitionRows) over the report history (report-history.ts):
 * against the changes counted here interval by interval, and against comparing each interval with the
 * one before it in start order (the statement it replaced), over every range.
 */

const history = useReportHistory('reporttransitions');

/** Each Service's changes whose later interval starts inside (from, to), in the answer's order. */
function referenceChanges(clusterId: string, range: { from: Date; to: Date }): TransitionRow[] {
  const counts = new Map<string, TransitionRow>();
  for (const service of SERVICES_OF_HISTORY) {
    service.intervals.forEach((interval, k) => {
      const before = service.intervals[k - 1];
      const inside = interval.from > range.from.getTime() && interval.from < range.to.getTime();
      if (!before || !inside || before.to !== interval.from || before.hintState === interval.hintState) return;
      const key = `${service.namespace}/${service.name}/${before.hintState}/${interval.hintState}`;
      const row = counts.get(key) ?? {
        clusterId,
        namespace: service.namespace,
        name: service.name,
        from: before.hintState,
        to: interval.hintState,
        count: 0,
      };
      row.count++;
      counts.set(key, row);
    });
  }
  return [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, row]) => row);
}

/** Every interval overlapping the range next to the one before it in start order. */
const NEIGHBOURS_SQL = `
  WITH ordered AS (
    SELECT i.cluster_id, s.namespace, s.name, i.valid_from, i.hint_state::text AS state,
           lag(i.hint_state::text) OVER w AS previous_state, lag(i.valid_to) OVER w AS previous_end
      FROM service_intervals i JOIN cluster_services s ON s.id = i.service_id
     WHERE i.cluster_id = ANY($1::uuid[]) AND i.valid_from < $3 AND (i.valid_to IS NULL OR i.valid_to >= $2)
    WINDOW w AS (PARTITION BY i.service_id ORDER BY i.valid_from)
  )
  SELECT cluster_id::text AS "clusterId", namespace, name, previous_state AS "from", state AS "to", count(*)::int AS count
    FROM ordered
   WHERE valid_from > $2 AND previous_end = valid_from AND previous_state <> state
   GROUP BY cluster_id, namespace, name, previous_state, state
   ORDER BY cluster_id, namespace, name, previous_state, state`;

describe("a report's hint-state changes", () => {
  it('are the back-to-back intervals whose states differ, over every range', async () => {
    let changes = 0;
    for (const range of ranges()) {
      for (const cluster of history().clusters) {
        const rows = await reportTransitionRows(history().readDb, [cluster.id], range.from, range.to);
        expect(rows, range.name).toEqual(referenceChanges(cluster.id, range));
        changes += rows.length;
      }
      const ids = history().clusters.map((cluster) => cluster.id);
      const neighbours = await history().readDb.query<TransitionRow>(NEIGHBOURS_SQL, [ids, range.from, range.to]);
      expect(await reportTransitionRows(history().readDb, ids, range.from, range.to), range.name).toEqual(neighbours);
    }
    expect(changes).toBeGreaterThan(20);
  });
});
