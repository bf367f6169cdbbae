/**
 * How long made reports are kept: REPORT_RETENTION_DAYS after their period ended (the worker's retention
 * job). Reports are what an organization keeps of its history once the history itself is gone, so they
 * are kept far longer than it; without a period they grew by a report per schedule per period for ever.
 */
import type { Db } from './db-client.js';

/**
 * Deletes the reports whose period ended before `before`, with their deliveries, in batches; returns how
 * many. A report still being made is left to the sweep. Each schedule's newest report of its own
 * (trigger `schedule`) is kept whatever its age: the scheduler claims the periods after it, and without
 * it would claim the old periods from the schedule's anchor again, whose history is gone.
 */
export async function pruneReports(db: Db, before: Date, batch = 1000): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await db.$executeRaw`
      DELETE FROM reports WHERE id IN (
        SELECT r.id FROM reports r
         WHERE r.period_end < ${before} AND r.status <> 'pending'
           AND (r.trigger <> 'schedule' OR EXISTS (
                 SELECT 1 FROM reports newer
                  WHERE newer.schedule_id = r.schedule_id AND newer.trigger = 'schedule'
                    AND (newer.period_end, newer.id) > (r.period_end, r.id)))
         LIMIT ${batch})`;
    total += deleted;
    if (deleted < batch) return total;
  }
}
