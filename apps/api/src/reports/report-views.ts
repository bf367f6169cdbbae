import type { ReportViewRow } from '@zw/db';
import { periodLabel } from '@zw/reports';
import { z } from 'zod';
import { parseInput } from '../http/validation.js';
import type { DeliverySchema, ReportSchema, ReportView } from './reports.schemas.js';

type DeliveryRow = NonNullable<ReportViewRow['delivery']>;

/** What the worker stores as a report's `summary` (the document's headline figures). */
interface StoredSummary {
  label?: string;
  totals: NonNullable<z.output<typeof ReportSchema>['summary']>['totals'];
  missedByReason: NonNullable<z.output<typeof ReportSchema>['summary']>['missedByReason'];
}

const idParam = z.object({ id: z.uuid({ message: 'must be a UUID' }) });

/** A schedule or report id from the path: 400 when it is no UUID (so it cannot be anybody's). */
export function idFromPath(id: string): string {
  return parseInput(idParam, { id }, 'path').id;
}

export function reportPath(id: string): string {
  return `/v1/reports/${id}`;
}

function deliveryView(row: DeliveryRow): z.output<typeof DeliverySchema> {
  return {
    id: row.id,
    url: row.url,
    status: row.status,
    attempts: row.attempts,
    lastAttemptAt: row.lastAttemptAt?.toISOString() ?? null,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
    log: Array.isArray(row.log) ? (row.log as z.output<typeof DeliverySchema>['log']) : [],
  };
}

export function reportView(row: ReportViewRow): ReportView {
  const summary = row.summary as StoredSummary | null;
  const period = { start: row.periodStart, end: row.periodEnd };
  return {
    id: row.id,
    schedule: { id: row.schedule.id, name: row.schedule.name },
    period: {
      start: row.periodStart.toISOString(),
      end: row.periodEnd.toISOString(),
      timeZone: row.schedule.timeZone,
      label: summary?.label ?? periodLabel(period, row.schedule.timeZone, row.partial),
    },
    partial: row.partial,
    trigger: row.trigger,
    status: row.status,
    error: row.error,
    attempts: row.attempts,
    formats: row.formats,
    createdAt: row.createdAt.toISOString(),
    generatedAt: row.generatedAt?.toISOString() ?? null,
    summary: summary ? { totals: summary.totals, missedByReason: summary.missedByReason } : null,
    downloads: Object.fromEntries(
      row.status === 'ready'
        ? row.formats.map((format) => [format, `${reportPath(row.id)}/download?format=${format}`])
        : [],
    ),
    delivery: row.delivery ? deliveryView(row.delivery) : null,
  };
}
