/**
 * What a made report stores, from its document: the JSON document and summary as served, and each other
 * format the schedule asks for, rendered once.
 */
import { renderCsv } from './csv.js';
import { renderHtml } from './html.js';
import type { ReportDocument } from './report-document.js';
import { reportDocumentJson, reportSummaryJson } from './report-json.js';

export type ReportFormat = 'json' | 'csv' | 'html';

export interface ReportBodies {
  documentJson: string;
  summaryJson: string;
  csv: string | null;
  html: string | null;
  /** The period's label, for the worker's log. */
  label: string;
}

/**
 * Decision: the bodies alone outlive this call, not the document. For an organization of 200,000 Services
 * the document and the input it was built from hold about 500 MB of the worker's heap, which no longer
 * wait in memory beside the bodies while they are stored (bench/RESULTS.md, reportmem25).
 */
export function reportBodies(document: ReportDocument, formats: readonly ReportFormat[]): ReportBodies {
  return {
    csv: formats.includes('csv') ? renderCsv(document) : null,
    html: formats.includes('html') ? renderHtml(document) : null,
    documentJson: reportDocumentJson(document),
    summaryJson: reportSummaryJson(document),
    label: document.period.label,
  };
}
