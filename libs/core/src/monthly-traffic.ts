/**
 * Traffic per Service, GB per month, first found: a value set through the API, the volume the cluster's
 * traffic source measured, the Service annotation `zonewise.io/monthly-traffic-gb`, else 50 GB per ready
 * endpoint per month, flagged as an estimate.
 */

export const MONTHLY_TRAFFIC_ANNOTATION = 'zonewise.io/monthly-traffic-gb';

/**
 * Decision: without a measured or declared volume, each ready endpoint is assumed to serve 50 GB a month
 * (about 19 KB/s around the clock): a modest backend pod. It is a placeholder that scales with the
 * Service's size, so rankings stay meaningful; every figure built on it says it is an estimate.
 */
export const DEFAULT_MONTHLY_GB_PER_ENDPOINT = 50;

export type TrafficSource = 'api' | 'measured' | 'annotation' | 'default-per-endpoint';

export interface MonthlyTraffic {
  gb: number;
  source: TrafficSource;
  /** true when the volume is zonewise's default, not a value someone gave. */
  estimate: boolean;
  note: string;
}

export interface MonthlyTrafficInput {
  /** A volume set through the API for this Service (GB per month). */
  explicitGb?: number | null;
  /** The Service's `metadata.annotations`. */
  annotations?: Readonly<Record<string, string>> | null;
  /** Ready endpoints of the Service (the analysis' `readyEndpoints`). */
  readyEndpoints: number;
  /** A volume measured by the cluster's traffic source; `note` says source, query and window. */
  measured?: { gb: number; note: string } | null;
}

export function monthlyTrafficGb({
  explicitGb,
  annotations,
  readyEndpoints,
  measured,
}: MonthlyTrafficInput): MonthlyTraffic {
  const ignored: string[] = [];
  if (explicitGb !== undefined && explicitGb !== null) {
    if (isValidGb(explicitGb)) return { gb: explicitGb, source: 'api', estimate: false, note: 'set through the API' };
    ignored.push(`ignored the API value ${String(explicitGb)}: expected a number of GB ≥ 0`);
  }
  if (measured && isValidGb(measured.gb)) {
    return { gb: measured.gb, source: 'measured', estimate: false, note: measured.note };
  }
  const text = annotations?.[MONTHLY_TRAFFIC_ANNOTATION];
  if (text !== undefined && text !== null) {
    const gb = parseGb(text);
    if (gb !== null) {
      return {
        gb,
        source: 'annotation',
        estimate: false,
        note: `from the Service annotation ${MONTHLY_TRAFFIC_ANNOTATION}`,
      };
    }
    ignored.push(`ignored ${MONTHLY_TRAFFIC_ANNOTATION}: ${JSON.stringify(text)}: expected a number of GB ≥ 0`);
  }
  const endpoints = Number.isFinite(readyEndpoints) && readyEndpoints > 0 ? Math.floor(readyEndpoints) : 0;
  const estimate = `estimate: ${DEFAULT_MONTHLY_GB_PER_ENDPOINT} GB per ready endpoint × ${endpoints} ready endpoint${endpoints === 1 ? '' : 's'}`;
  return {
    gb: endpoints * DEFAULT_MONTHLY_GB_PER_ENDPOINT,
    source: 'default-per-endpoint',
    estimate: true,
    note: [...ignored, estimate].join('; '),
  };
}

/** A plain decimal, optionally with an exponent (`120`, `0.5`, `1.5e3`); no sign, no units, finite. */
const GB_PATTERN = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

function parseGb(text: string): number | null {
  const trimmed = text.trim();
  if (!GB_PATTERN.test(trimmed)) return null;
  const gb = Number(trimmed);
  return isValidGb(gb) ? gb : null;
}

export function isValidGb(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
