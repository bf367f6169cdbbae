/**
 * A report's JSON document as it is stored and downloaded: serialised once when the report is made, money
 * in whole cents, and served as stored.
 */
import { moneyReplacer } from '@zw/core';
import type { ReportDocument } from './report-document.js';

/** The JSON document as a download serves it (and as it is stored). */
export function reportDocumentJson(document: ReportDocument): string {
  return JSON.stringify(document, moneyReplacer);
}

/**
 * The headline figures a report's listing, view and channel messages show, serialised as stored: its
 * period's label, totals and missed savings by reason, money in cents as in the document.
 */
export function reportSummaryJson(document: ReportDocument): string {
  const summary = {
    label: document.period.label,
    totals: document.totals,
    missedByReason: document.missedSavings.byReason,
  };
  return JSON.stringify(summary, moneyReplacer);
}

/**
 * What a stored report holds of its JSON document: the served text, or for a report made before it was
 * kept as text, the document as jsonb read back.
 */
export interface StoredReportDocument {
  documentJson: string | null;
  document: unknown;
}

/** The JSON a download serves of a stored report, or null when it was not made as JSON. */
export function storedReportJson(stored: StoredReportDocument): string | null {
  if (stored.documentJson !== null) return stored.documentJson;
  return stored.document === null ? null : reportDocumentJson(stored.document as ReportDocument);
}
