/**
 * A preset's answer (an instant vector, see traffic-presets.ts) turned into bytes per Service and, where
 * the source knows the zones of both ends, the bytes that crossed zones; with the checks that decide
 * whether the answer can be used at all (statuses `empty`, `wrong-labels`, `ambiguous`,
 * `invalid-values`) and how much of the window it covers (`partial`). Plain data in, plain data out.
 * How each preset's series are credited to Services is preset-attribution.ts.
 */
import { ATTRIBUTIONS, type MeasuredServiceTraffic, type PromSample } from './preset-attribution.js';
import type { ServiceMap } from './service-map.js';
import {
  type ClusterSelector,
  COVERAGE_PART,
  coverageStepSeconds,
  DEFAULT_CLUSTER_LABEL,
  PART_LABEL,
  type TrafficPreset,
} from './traffic-presets.js';

export type MeasurementProblem = 'empty' | 'wrong-labels' | 'ambiguous' | 'invalid-values';

export interface TrafficMeasurement {
  services: MeasuredServiceTraffic[];
  /** Series in the answer (the coverage part aside), and those that named no Service of the snapshot. */
  series: number;
  unmatchedSeries: number;
  /** Set when the answer cannot be used; `detail` says why. */
  problem: MeasurementProblem | null;
  detail: string | null;
  /**
   * The share of the window the source has data for (1: all of it), null when the answer does not say
   * (custom templates). Below 1 the volumes are bytes over the covered seconds only (`coveredSeconds`).
   */
  coverage: number | null;
  coveredSeconds: number | null;
  /** Values of the cluster label the answer's series carry. */
  clusters: string[];
  /** Facts about the answer worth telling the user (e.g. a metric whose labels could not be used). */
  notes: string[];
}

export interface MeasureOptions {
  windowSeconds: number;
  cluster?: ClusterSelector | null;
  /** The snapshot's Services by Pod and owner (Pod-mapped presets: beyla, opencost). */
  services?: ServiceMap;
}

/**
 * Bytes per Service from the preset's answer. The answer is refused as a whole when it is empty, spans
 * several clusters while the source names none (`ambiguous`), holds a negative or non-finite value
 * (`invalid-values`: no counter increase is either, so the source or a recording rule is broken), or no
 * series carries the labels the preset reads (`wrong-labels`).
 */
export function measureTraffic(
  preset: TrafficPreset,
  samples: readonly PromSample[],
  options: MeasureOptions,
): TrafficMeasurement {
  const cluster = options.cluster ?? { label: DEFAULT_CLUSTER_LABEL, value: null };
  const coverageSample = samples.find((sample) => sample.metric[PART_LABEL] === COVERAGE_PART);
  const data = samples.filter((sample) => sample.metric[PART_LABEL] !== COVERAGE_PART);
  const clusters = [...new Set(data.map((sample) => sample.metric[cluster.label]).filter(Boolean))].sort();
  const result = (fields: Partial<TrafficMeasurement>): TrafficMeasurement => ({
    services: [],
    series: data.length,
    unmatchedSeries: 0,
    problem: null,
    detail: null,
    coverage: null,
    coveredSeconds: null,
    clusters,
    notes: [],
    ...fields,
  });
  if (data.length === 0) return result({ problem: 'empty', detail: 'the query returned no series' });
  if (cluster.value === null && clusters.length > 1) {
    return result({
      problem: 'ambiguous',
      detail: `the series span ${clusters.length} clusters (${cluster.label}: ${listed(clusters)}): name this cluster's value of ${cluster.label} on the source`,
    });
  }
  const invalid = data.filter((sample) => !isUsableValue(sample.value[1]));
  if (invalid.length > 0) {
    return result({
      problem: 'invalid-values',
      detail: `${invalid.length} series carry a negative or non-finite increase (e.g. ${invalid[0].value[1]} for ${labelsText(invalid[0].metric)}): no counter increase is; check the source and any recording rule in between`,
    });
  }
  const attribution = ATTRIBUTIONS[preset](data, options.services ?? { pods: new Map(), owners: new Map() });
  if (attribution.labelled === 0) {
    return result({ problem: 'wrong-labels', detail: attribution.wrongLabels });
  }
  const covered = coverageOf(coverageSample, options.windowSeconds);
  const services = [...attribution.byService.values()].sort((a, b) =>
    a.namespace === b.namespace ? compare(a.name, b.name) : compare(a.namespace, b.namespace),
  );
  return result({
    services,
    unmatchedSeries: attribution.unmatched,
    coverage: covered === null ? null : covered / options.windowSeconds,
    coveredSeconds: covered,
    notes: attribution.notes,
  });
}

/**
 * The measurement with its coverage taken from a finer coverage answer ({@link coverageQuery}): the
 * seconds from the step before the first at which the source had data (its first sample lies in that
 * step; `increase` counts a counter born then from zero) to the evaluation time, capped at the window.
 */
export function withRefinedCoverage(
  measurement: TrafficMeasurement,
  answer: readonly PromSample[],
  windowSeconds: number,
  stepSeconds: number,
): TrafficMeasurement {
  const [sample] = answer;
  const first = sample === undefined ? Number.NaN : Number(sample.value[1]);
  if (!Number.isFinite(first)) return measurement;
  const covered = Math.max(1, Math.min(windowSeconds, sample.value[0] - first + stepSeconds));
  return { ...measurement, coverage: covered / windowSeconds, coveredSeconds: covered };
}

function isUsableValue(text: string): boolean {
  const value = Number(text);
  return Number.isFinite(value) && value >= 0;
}

/**
 * Seconds of the window the source has data for: from the first subquery step at which any of its
 * series existed to the evaluation time; the whole window when its first step already had data.
 */
function coverageOf(sample: PromSample | undefined, windowSeconds: number): number | null {
  if (sample === undefined) return null;
  const first = Number(sample.value[1]);
  const now = sample.value[0];
  if (!Number.isFinite(first)) return null;
  const step = coverageStepSeconds(windowSeconds);
  if (first <= now - windowSeconds + step) return windowSeconds;
  return Math.max(step, Math.min(windowSeconds, now - first));
}

/** The labels of a `wrong-labels` answer's series, as its detail lists them. */
export function wrongLabelsDetail(detail: string, seen: readonly PromSample[]): string {
  const labels = [...new Set(seen.flatMap((sample) => Object.keys(sample.metric)))]
    .filter((label) => label !== PART_LABEL && label !== '__name__')
    .sort();
  return `${detail}; labels the series carry: ${labels.join(', ') || 'none'}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function listed(values: readonly string[]): string {
  return values.length <= 5 ? values.join(', ') : `${values.slice(0, 5).join(', ')} and ${values.length - 5} more`;
}

function labelsText(metric: Readonly<Record<string, string>>): string {
  const entries = Object.entries(metric).filter(([key]) => key !== PART_LABEL);
  return `{${entries.map(([key, value]) => `${key}="${value}"`).join(', ')}}`;
}
