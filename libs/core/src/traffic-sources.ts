/**
 * Measured traffic: the PromQL each traffic-source preset sends to a cluster's Prometheus, and how its
 * answer (an instant vector) becomes bytes per Service and, where the source knows the zones of both
 * ends, the measured cross-zone fraction. Plain data in, plain data out: the worker does the HTTP.
 *
 * Every preset is ONE instant query over the whole window (`increase(...[window])`, summed `by` the
 * labels it needs), so a cluster of 10,000 Services costs one Prometheus round trip per interval.
 */
import type { Snapshot } from './snapshot-model.js';

export const TRAFFIC_PRESETS = ['istio', 'linkerd', 'beyla', 'opencost', 'custom'] as const;
export type TrafficPreset = (typeof TRAFFIC_PRESETS)[number];

/** Placeholder of a custom template for the window, replaced by a PromQL duration such as `3600s`. */
export const WINDOW_PLACEHOLDER = '$window';

/** Labels a custom template's result must carry on every series. */
export const CUSTOM_TEMPLATE_LABELS = ['namespace', 'service'] as const;

export interface TrafficQuerySpec {
  preset: TrafficPreset;
  /** Length of the measured window, in seconds. */
  windowSeconds: number;
  /** Only for `custom`: PromQL with {@link WINDOW_PLACEHOLDER}, returning bytes by `namespace`, `service`. */
  template?: string | null;
}

/**
 * Decision (upstream metric names and labels, read from each project's documentation):
 * - Istio standard metrics: `istio_request_bytes_sum`/`istio_response_bytes_sum` (the `_sum` of the size
 *   histograms), labelled `destination_service_namespace`/`destination_service_name`. Only the
 *   destination proxy's reports (`reporter="destination"`) are counted: both ends report the same bytes,
 *   and a client outside the mesh has no source proxy. Istio carries no zone labels by default.
 * - Linkerd proxy: `tcp_read_bytes_total` + `tcp_write_bytes_total` of the client's proxy
 *   (`direction="outbound"`), labelled `dst_namespace`/`dst_service`: both directions of the connection.
 * - Grafana Beyla network metrics: `beyla_network_flow_bytes_total` with the `k8s.dst.namespace`,
 *   `k8s.dst.name`, `k8s.dst.type`, `src.zone` and `dst.zone` attributes selected (Beyla's docs, "Measure
 *   traffic between Cloud availability zones"). Flows are seen after kube-proxy's DNAT, so the destination
 *   is mostly a Pod: it is mapped to its Services through the newest snapshot's EndpointSlices.
 * - OpenCost/Kubecost network costs: `kubecost_pod_network_egress_bytes_total` by `namespace`, `pod_name`
 *   and `same_zone` (internet egress excluded), bytes a Pod sends: an endpoint's responses, mapped to its
 *   Services through EndpointSlice `targetRef`s.
 */
export function trafficQuery(spec: TrafficQuerySpec): string {
  const window = `${Math.round(spec.windowSeconds)}s`;
  switch (spec.preset) {
    case 'istio':
      return sumOfBoth(
        'destination_service_namespace, destination_service_name',
        ['istio_request_bytes_sum', 'istio_response_bytes_sum'],
        '{reporter="destination"}',
        window,
      );
    case 'linkerd':
      return sumOfBoth(
        'dst_namespace, dst_service',
        ['tcp_read_bytes_total', 'tcp_write_bytes_total'],
        '{direction="outbound",dst_service!=""}',
        window,
      );
    case 'beyla':
      return `sum by (k8s_dst_namespace, k8s_dst_name, k8s_dst_type, src_zone, dst_zone) (increase(beyla_network_flow_bytes_total[${window}]))`;
    case 'opencost':
      return `sum by (namespace, pod_name, same_zone) (increase(kubecost_pod_network_egress_bytes_total{internet="false"}[${window}]))`;
    case 'custom':
      return (spec.template ?? '').split(WINDOW_PLACEHOLDER).join(window);
  }
}

/**
 * The bytes of two counters summed per group, in one query. `increase` drops the metric name, so one
 * selector over both names would give two series with the same labels; `A + B` keeps groups with both,
 * and `or A or B` those with only one of them.
 */
function sumOfBoth(by: string, [a, b]: readonly [string, string], selector: string, window: string): string {
  const sumOf = (name: string) => `sum by (${by}) (increase(${name}${selector}[${window}]))`;
  return `(${sumOf(a)} + ${sumOf(b)}) or ${sumOf(a)} or ${sumOf(b)}`;
}

/** Why a custom template is refused, or null. */
export function customTemplateProblem(template: string): string | null {
  if (!template.includes(WINDOW_PLACEHOLDER)) return `must contain the window placeholder ${WINDOW_PLACEHOLDER}`;
  const missing = CUSTOM_TEMPLATE_LABELS.filter((label) => !new RegExp(`\\b${label}\\b`).test(template));
  if (missing.length > 0)
    return `must group by the labels ${missing.join(', ')} (e.g. sum by (namespace, service) (...))`;
  return null;
}

/** Which labels name the Service (or the Pod to map) and the zones, per preset. */
interface LabelMap {
  namespace: string;
  /** A Service name, or with `pod: true` a Pod name to map through EndpointSlices. */
  name: string;
  pod: boolean;
  /** Label whose value `Service` says the name is a Service even for a Pod-mapped preset. */
  kind?: string;
  zones?: { source: string; destination: string } | { sameZone: string };
}

const LABELS: Record<TrafficPreset, LabelMap> = {
  istio: { namespace: 'destination_service_namespace', name: 'destination_service_name', pod: false },
  linkerd: { namespace: 'dst_namespace', name: 'dst_service', pod: false },
  beyla: {
    namespace: 'k8s_dst_namespace',
    name: 'k8s_dst_name',
    pod: true,
    kind: 'k8s_dst_type',
    zones: { source: 'src_zone', destination: 'dst_zone' },
  },
  opencost: { namespace: 'namespace', name: 'pod_name', pod: true, zones: { sameZone: 'same_zone' } },
  custom: { namespace: 'namespace', name: 'service', pod: false },
};

/** One series of an instant vector (Prometheus' `data.result[]` with `resultType: vector`). */
export interface PromSample {
  metric: Readonly<Record<string, string>>;
  value: readonly [number, string];
}

/** Services by `namespace/pod`, from the EndpointSlices' `targetRef`s (a Pod may back several Services). */
export type PodServices = ReadonlyMap<string, readonly string[]>;

export interface MeasuredServiceTraffic {
  namespace: string;
  name: string;
  /** Bytes over the window. */
  bytes: number;
  /** Bytes whose two ends' zones are known, and those of them that crossed zones (0 when none known). */
  zonedBytes: number;
  crossZoneBytes: number;
}

export type MeasurementProblem = 'empty' | 'wrong-labels';

export interface TrafficMeasurement {
  services: MeasuredServiceTraffic[];
  /** Series in the answer, and those that named no Service of the snapshot (unknown Pod, missing label). */
  series: number;
  unmatchedSeries: number;
  /** Set when the answer cannot be used: nothing came back, or no series carries the preset's labels. */
  problem: MeasurementProblem | null;
  detail: string | null;
}

/**
 * Bytes per Service from the preset's answer. A series whose value is not a finite number ≥ 0 is
 * skipped (a counter reset makes `increase` extrapolate, never go negative; NaN means no data).
 */
export function measureTraffic(
  preset: TrafficPreset,
  samples: readonly PromSample[],
  podServices: PodServices = new Map(),
): TrafficMeasurement {
  const labels = LABELS[preset];
  if (samples.length === 0) {
    return { services: [], series: 0, unmatchedSeries: 0, problem: 'empty', detail: 'the query returned no series' };
  }
  const byService = new Map<string, MeasuredServiceTraffic>();
  let labelled = 0;
  let unmatched = 0;
  for (const sample of samples) {
    const namespace = sample.metric[labels.namespace];
    const name = sample.metric[labels.name];
    if (!namespace || !name) {
      unmatched++;
      continue;
    }
    labelled++;
    const bytes = Number(sample.value[1]);
    if (!Number.isFinite(bytes) || bytes < 0) continue;
    const services = servicesOfSeries(labels, sample.metric, namespace, name, podServices);
    if (services.length === 0) {
      unmatched++;
      continue;
    }
    const crossing = crossesZones(labels, sample.metric);
    // Decision: a Pod backing several Services sends bytes we cannot attribute to one of them; each gets
    // an equal part, so the cluster's total stays the bytes measured.
    const part = bytes / services.length;
    for (const key of services) {
      const entry = byService.get(key) ?? newEntry(key);
      entry.bytes += part;
      if (crossing !== null) {
        entry.zonedBytes += part;
        if (crossing) entry.crossZoneBytes += part;
      }
      byService.set(key, entry);
    }
  }
  if (labelled === 0) {
    const seen = [...new Set(samples.flatMap((sample) => Object.keys(sample.metric)))].sort();
    return {
      services: [],
      series: samples.length,
      unmatchedSeries: unmatched,
      problem: 'wrong-labels',
      detail: `no series carries the labels ${labels.namespace} and ${labels.name}; labels seen: ${seen.join(', ') || 'none'}`,
    };
  }
  const services = [...byService.values()].sort((a, b) =>
    a.namespace === b.namespace ? compare(a.name, b.name) : compare(a.namespace, b.namespace),
  );
  return { services, series: samples.length, unmatchedSeries: unmatched, problem: null, detail: null };
}

function servicesOfSeries(
  labels: LabelMap,
  metric: Readonly<Record<string, string>>,
  namespace: string,
  name: string,
  podServices: PodServices,
): readonly string[] {
  const isService = labels.kind !== undefined && metric[labels.kind] === 'Service';
  if (!labels.pod || isService) return [`${namespace}/${name}`];
  return podServices.get(`${namespace}/${name}`) ?? [];
}

/** true/false when the series says whether its bytes crossed zones, null when it does not know. */
function crossesZones(labels: LabelMap, metric: Readonly<Record<string, string>>): boolean | null {
  const zones = labels.zones;
  if (zones === undefined) return null;
  if ('sameZone' in zones) {
    const same = metric[zones.sameZone];
    return same === 'true' ? false : same === 'false' ? true : null;
  }
  const source = metric[zones.source];
  const destination = metric[zones.destination];
  if (!source || !destination) return null;
  return source !== destination;
}

function newEntry(key: string): MeasuredServiceTraffic {
  const slash = key.indexOf('/');
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1), bytes: 0, zonedBytes: 0, crossZoneBytes: 0 };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The Services each Pod backs, from the EndpointSlices' `targetRef`s (kind Pod) and their
 * `kubernetes.io/service-name` label, as the EndpointSlice controller writes them.
 */
export function podServicesOf(snapshot: Pick<Snapshot, 'endpointSlices'>): Map<string, string[]> {
  const services = new Map<string, Set<string>>();
  for (const slice of snapshot.endpointSlices) {
    const service = slice.metadata.labels?.['kubernetes.io/service-name'];
    const namespace = slice.metadata.namespace ?? 'default';
    if (!service) continue;
    for (const endpoint of slice.endpoints) {
      const ref = endpoint.targetRef as { kind?: unknown; name?: unknown; namespace?: unknown } | undefined;
      if (ref?.kind !== 'Pod' || typeof ref.name !== 'string') continue;
      const podNamespace = typeof ref.namespace === 'string' && ref.namespace !== '' ? ref.namespace : namespace;
      const key = `${podNamespace}/${ref.name}`;
      const set = services.get(key) ?? new Set<string>();
      set.add(`${namespace}/${service}`);
      services.set(key, set);
    }
  }
  return new Map([...services].map(([pod, set]) => [pod, [...set].sort()]));
}

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

// ---------------------------------------------------------------------------------------------
// Model against measurement
// ---------------------------------------------------------------------------------------------

export interface ModelVsMeasuredInput {
  /** The volume the model would use without a measurement (annotation or per-endpoint default). */
  estimatedGb: number;
  /** The model's cross-zone fraction for today's routing (`withHints`). */
  estimatedCrossZone: number;
  measuredGb: number | null;
  measuredCrossZone: number | null;
  pricePerGb: number;
}

/** One side of the comparison: volume (GB per month), cross-zone fraction, monthly cross-zone cost (USD). */
export interface TrafficFigures<T> {
  trafficGb: T;
  crossZone: T;
  cost: T;
}

/**
 * The model against the measurement, side by side. Every money amount is a number named `cost`, as in
 * every other answer (so answers round it to cents alike).
 */
export interface ModelVsMeasured {
  /** The model's inputs alone: declared or default volume × modelled fraction × price. */
  estimated: TrafficFigures<number>;
  /** Measured volume × measured fraction × price (null where the source gives no zones). */
  measured: TrafficFigures<number | null>;
  /** estimated − measured, field by field (null where there is no measurement). */
  error: TrafficFigures<number | null>;
}

export function modelVsMeasured(input: ModelVsMeasuredInput): ModelVsMeasured {
  const estimated = {
    trafficGb: input.estimatedGb,
    crossZone: input.estimatedCrossZone,
    cost: input.estimatedGb * input.estimatedCrossZone * input.pricePerGb,
  };
  const measured = {
    trafficGb: input.measuredGb,
    crossZone: input.measuredCrossZone,
    cost:
      input.measuredGb !== null && input.measuredCrossZone !== null
        ? input.measuredGb * input.measuredCrossZone * input.pricePerGb
        : null,
  };
  return { estimated, measured, error: errorOf(estimated, measured) };
}

/** estimated − measured for every field both sides have. */
export function errorOf<K extends string>(
  estimated: Record<K, number>,
  measured: Record<K, number | null>,
): Record<K, number | null> {
  const error = {} as Record<K, number | null>;
  for (const key of Object.keys(estimated) as K[]) {
    const value = measured[key];
    error[key] = value === null ? null : estimated[key] - value;
  }
  return error;
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
