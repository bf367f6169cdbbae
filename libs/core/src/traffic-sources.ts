/**
 * Measured traffic: a measured volume as GB per month, the measured cross-zone fraction, and where a
 * measurement came from. The queries are traffic-presets.ts, reading their answers
 * traffic-attribution.ts, the model against the measurement model-vs-measured.ts. Plain data in, plain
 * data out: the worker does the HTTP.
 */
import type { MeasuredServiceTraffic } from './preset-attribution.js';

/** Hours in a month, as the savings model (cloud price lists) counts them. */
const HOURS_PER_MONTH = 730;
const BYTES_PER_GB = 1e9;

/** A volume measured over `windowSeconds`, as GB per month (the savings model's traffic unit). */
export function monthlyGbOf(bytes: number, windowSeconds: number): number {
  return ((bytes / windowSeconds) * HOURS_PER_MONTH * 3600) / BYTES_PER_GB;
}

/** The measured cross-zone fraction, or null when the source gave no zones for this Service's bytes. */
export function measuredCrossZoneFraction(entry: Pick<MeasuredServiceTraffic, 'zonedBytes' | 'crossZoneBytes'>) {
  return entry.zonedBytes > 0 ? entry.crossZoneBytes / entry.zonedBytes : null;
}

/** Where a measured volume came from, as every answer built on it states it. */
export interface MeasurementProvenance {
  preset: string;
  /** The PromQL sent (null if not recorded). */
  query: string | null;
  windowSeconds: number;
  measuredAt: Date;
}

/** `measured: <preset>, query <PromQL>, window <s>s, at <ISO time>` — the traffic note of a measured volume. */
export function measuredTrafficNote(provenance: MeasurementProvenance): string {
  const query = provenance.query === null ? '' : `, query ${provenance.query}`;
  return `measured: ${provenance.preset}${query}, window ${provenance.windowSeconds}s, at ${provenance.measuredAt.toISOString()}`;
}

/** One Service's measured volume, as stored. */
export interface ServiceVolume {
  namespace: string;
  name: string;
  monthlyGb: number;
  /** Measured cross-zone fraction, null when the source gave no zones. */
  crossZone: number | null;
}

/**
 * The measured Services' GB per month over `seconds` of bytes. A volume too large for a float8 (bytes
 * near 1e300 over a short window) is refused as `invalid-values`: stored, it would read back as NULL,
 * and every roll-up would disagree with the Service's own figures.
 */
export function measuredVolumes(
  services: readonly MeasuredServiceTraffic[],
  seconds: number,
): ServiceVolume[] | { problem: 'invalid-values'; detail: string } {
  const volumes: ServiceVolume[] = [];
  for (const entry of services) {
    const monthlyGb = monthlyGbOf(entry.bytes, seconds);
    const crossZone = measuredCrossZoneFraction(entry);
    if (!Number.isFinite(monthlyGb) || (crossZone !== null && !Number.isFinite(crossZone))) {
      return {
        problem: 'invalid-values',
        detail: `${entry.namespace}/${entry.name}: ${entry.bytes} bytes over ${seconds}s is no finite monthly volume`,
      };
    }
    volumes.push({ namespace: entry.namespace, name: entry.name, monthlyGb, crossZone });
  }
  return volumes;
}
