/**
 * A preset's answer (an instant vector, see traffic-presets.ts) turned into bytes per Service and, where
 * the source knows the zones of both ends, the bytes that crossed zones; with the checks that decide
 * whether the answer can be used at all (statuses `empty`, `wrong-labels`, `ambiguous`,
 * `invalid-values`) and how much of the window it covers (`partial`). Plain data in, plain data out.
 */
import type { Snapshot } from './snapshot-model.js';
import {
  BEYLA_END_LABELS,
  type ClusterSelector,
  COVERAGE_PART,
  coverageStepSeconds,
  DEFAULT_CLUSTER_LABEL,
  PART_LABEL,
  type TrafficPreset,
} from './traffic-presets.js';
import { WorkloadIndex } from './workloads.js';

/** One series of an instant vector (Prometheus' `data.result[]` with `resultType: vector`). */
export interface PromSample {
  metric: Readonly<Record<string, string>>;
  value: readonly [number, string];
}

/** Services (`namespace/name`) per Pod and per workload owner name, from the newest snapshot. */
export interface ServiceMap {
  /** By `namespace/pod`, from the EndpointSlices' `targetRef`s (a Pod may back several Services). */
  pods: ReadonlyMap<string, readonly string[]>;
  /**
   * By `namespace/owner`: the workload behind the endpoints (Deployment, StatefulSet…, as Beyla names
   * the owner of a Pod), and a Pod's own name (Beyla's owner of a Pod without one).
   */
  owners: ReadonlyMap<string, readonly string[]>;
}

export interface MeasuredServiceTraffic {
  namespace: string;
  name: string;
  /** Bytes over the window. */
  bytes: number;
  /** Bytes whose two ends' zones are known, and those of them that crossed zones (0 when none known). */
  zonedBytes: number;
  crossZoneBytes: number;
}

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

// ---------------------------------------------------------------------------------------------
// Per preset: which Service a series' bytes belong to, and whether they crossed zones
// ---------------------------------------------------------------------------------------------

interface Attribution {
  byService: Map<string, MeasuredServiceTraffic>;
  /** Series carrying the labels the preset reads (0: the answer is `wrong-labels`). */
  labelled: number;
  unmatched: number;
  wrongLabels: string;
  notes: string[];
}

type Attribute = (data: readonly PromSample[], services: ServiceMap) => Attribution;

function newAttribution(wrongLabels: string): Attribution {
  return { byService: new Map(), labelled: 0, unmatched: 0, wrongLabels, notes: [] };
}

/** Adds bytes to Services: a series backing several Services gives each an equal part (the total stays the bytes measured). */
function credit(into: Attribution, keys: readonly string[], bytes: number, crossing: boolean | null): void {
  const part = bytes / keys.length;
  for (const key of keys) {
    const entry = into.byService.get(key) ?? newEntry(key);
    entry.bytes += part;
    if (crossing !== null) {
      entry.zonedBytes += part;
      if (crossing) entry.crossZoneBytes += part;
    }
    into.byService.set(key, entry);
  }
}

function newEntry(key: string): MeasuredServiceTraffic {
  const slash = key.indexOf('/');
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1), bytes: 0, zonedBytes: 0, crossZoneBytes: 0 };
}

/** A preset whose series name the Service (namespace and name labels), with an optional zone reading. */
function byServiceLabels(
  namespaceLabel: string,
  nameLabel: string,
  crossing: (metric: Readonly<Record<string, string>>) => boolean | null,
): Attribute {
  return (data) => {
    const into = newAttribution('');
    for (const sample of data) {
      const namespace = sample.metric[namespaceLabel];
      const name = sample.metric[nameLabel];
      // Istio labels what it cannot name `unknown` (e.g. a request no Service matched).
      if (!namespace || !name || namespace === 'unknown' || name === 'unknown') {
        into.unmatched++;
        continue;
      }
      into.labelled++;
      credit(into, [`${namespace}/${name}`], Number(sample.value[1]), crossing(sample.metric));
    }
    into.wrongLabels = `no series carries the labels ${namespaceLabel} and ${nameLabel}`;
    return into;
  };
}

/** Both ends' zones, when both are known (ztunnel writes `unknown` for a missing one). */
function zonesDiffer(source: string, destination: string) {
  return (metric: Readonly<Record<string, string>>): boolean | null => {
    const from = metric[source];
    const to = metric[destination];
    if (!from || !to || from === 'unknown' || to === 'unknown') return null;
    return from !== to;
  };
}

const linkerdLocality = (metric: Readonly<Record<string, string>>): boolean | null => {
  const locality = metric.dst_zone_locality?.toLowerCase();
  return locality === 'local' ? false : locality === 'remote' ? true : null;
};

/**
 * Beyla: flows are one-way. The server end of a flow is its destination for `direction="request"` and
 * its source for `direction="response"`; without a direction (Beyla before it exported one, or
 * `unknown`: UDP), the one end that backs a Service, and none when both or neither do.
 */
const beyla: Attribute = (data, services) => {
  const into = newAttribution(
    'no series carries the owner labels k8s_src_owner_name/k8s_dst_owner_name with their namespaces (Beyla with Kubernetes metadata enabled reports them by default)',
  );
  const flows = new Map<string, { bytes: number; zoned: number; crossing: number; interZone: number }>();
  let interZoneWithoutOwners = 0;
  let serviceCopies = 0;
  for (const sample of data) {
    const interZone = sample.metric[PART_LABEL] === 'inter_zone';
    const ends = (['src', 'dst'] as const).map((side) => endOf(sample.metric, side));
    if (ends.every((end) => end === null)) {
      if (interZone) interZoneWithoutOwners++;
      into.unmatched++;
      continue;
    }
    into.labelled++;
    const server = serverEnd(sample.metric.direction, ends, services);
    if (server === null) {
      into.unmatched++;
      continue;
    }
    // The same bytes are reported against the workload; this copy names the Service in front of it.
    if (server.type.toLowerCase() === 'service') {
      serviceCopies++;
      continue;
    }
    const keys = services.owners.get(`${server.namespace}/${server.owner}`);
    if (keys === undefined) {
      into.unmatched++;
      continue;
    }
    const bytes = Number(sample.value[1]);
    const crossing = interZone
      ? null
      : zonesDiffer(BEYLA_END_LABELS.src.zone, BEYLA_END_LABELS.dst.zone)(sample.metric);
    for (const key of keys) {
      const flow = flows.get(key) ?? { bytes: 0, zoned: 0, crossing: 0, interZone: 0 };
      const part = bytes / keys.length;
      if (interZone) flow.interZone += part;
      else {
        flow.bytes += part;
        if (crossing !== null) flow.zoned += part;
        if (crossing === true) flow.crossing += part;
      }
      flows.set(key, flow);
    }
  }
  for (const [key, flow] of flows) {
    if (flow.bytes === 0) continue;
    const entry = newEntry(key);
    entry.bytes = flow.bytes;
    if (flow.zoned > 0) {
      entry.zonedBytes = flow.zoned;
      entry.crossZoneBytes = flow.crossing;
    } else if (flow.interZone > 0 || interZoneAttributed(flows)) {
      // The inter-zone metric counts every byte that crossed; the rest of the flow bytes stayed in zone.
      entry.zonedBytes = flow.bytes;
      entry.crossZoneBytes = Math.min(flow.interZone, flow.bytes);
    }
    into.byService.set(key, entry);
  }
  if (serviceCopies > 0) {
    into.notes.push(
      `${serviceCopies} series name a Service as owner type: the same bytes as the workload's series, skipped`,
    );
  }
  if (interZoneWithoutOwners > 0) {
    into.notes.push(
      'beyla_network_inter_zone_bytes_total carries no owner attributes (its default): select k8s.src.owner.name, k8s.src.namespace, k8s.dst.owner.name and k8s.dst.namespace for it to measure the share crossing zones',
    );
  }
  return into;
};

function interZoneAttributed(flows: ReadonlyMap<string, { interZone: number }>): boolean {
  for (const flow of flows.values()) if (flow.interZone > 0) return true;
  return false;
}

interface FlowEnd {
  namespace: string;
  owner: string;
  type: string;
}

function endOf(metric: Readonly<Record<string, string>>, side: 'src' | 'dst'): FlowEnd | null {
  const labels = BEYLA_END_LABELS[side];
  const namespace = metric[labels.namespace];
  const owner = metric[labels.owner];
  if (!namespace || !owner) return null;
  return { namespace, owner, type: metric[labels.type] ?? '' };
}

function serverEnd(
  direction: string | undefined,
  [source, destination]: (FlowEnd | null)[],
  services: ServiceMap,
): FlowEnd | null {
  if (direction === 'request') return destination;
  if (direction === 'response') return source;
  const backsService = (end: FlowEnd | null) =>
    end !== null && end.type.toLowerCase() !== 'service' && services.owners.has(`${end.namespace}/${end.owner}`);
  const candidates = [source, destination].filter(backsService);
  return candidates.length === 1 ? candidates[0] : null;
}

/** Kubecost network costs: a Pod's ingress and egress, mapped to the Services it backs. */
const opencost: Attribute = (data, services) => {
  const into = newAttribution('no series carries the labels namespace and pod_name (or pod)');
  for (const sample of data) {
    const namespace = sample.metric.namespace;
    const pod = sample.metric.pod_name || sample.metric.pod;
    if (!namespace || !pod) {
      into.unmatched++;
      continue;
    }
    into.labelled++;
    const keys = services.pods.get(`${namespace}/${pod}`);
    if (keys === undefined) {
      into.unmatched++;
      continue;
    }
    const same = sample.metric.same_zone || sample.metric.sameZone;
    const crossing = same === 'true' ? false : same === 'false' ? true : null;
    credit(into, keys, Number(sample.value[1]), crossing);
  }
  return into;
};

const ATTRIBUTIONS: Record<TrafficPreset, Attribute> = {
  istio: byServiceLabels(
    'destination_service_namespace',
    'destination_service_name',
    zonesDiffer('source_zone', 'destination_zone'),
  ),
  'istio-ambient': byServiceLabels(
    'destination_service_namespace',
    'destination_service_name',
    zonesDiffer('source_zone', 'destination_zone'),
  ),
  linkerd: byServiceLabels('dst_namespace', 'dst_service', linkerdLocality),
  beyla,
  opencost,
  custom: byServiceLabels('namespace', 'service', () => null),
};

/** The labels of a `wrong-labels` answer's series, as its detail lists them. */
export function wrongLabelsDetail(detail: string, seen: readonly PromSample[]): string {
  const labels = [...new Set(seen.flatMap((sample) => Object.keys(sample.metric)))]
    .filter((label) => label !== PART_LABEL && label !== '__name__')
    .sort();
  return `${detail}; labels the series carry: ${labels.join(', ') || 'none'}`;
}

// ---------------------------------------------------------------------------------------------
// The snapshot's Services by Pod and by owner
// ---------------------------------------------------------------------------------------------

/**
 * The Services each Pod backs (EndpointSlice `targetRef`s and `kubernetes.io/service-name`) and each
 * workload owner: through the snapshot's Pods and ReplicaSets when it has them (workloads.ts); without
 * them, through the names the controllers give Pods (`<deployment>-<hash>-<suffix>`,
 * `<statefulset>-<ordinal>`, `<daemonset>-<suffix>`), so an older agent's snapshots still map.
 */
export function serviceMapOf(snapshot: Pick<Snapshot, 'endpointSlices' | 'pods' | 'replicaSets'>): ServiceMap {
  const index = new WorkloadIndex(snapshot);
  const pods = new Map<string, Set<string>>();
  const owners = new Map<string, Set<string>>();
  const add = (map: Map<string, Set<string>>, key: string, service: string) => {
    const set = map.get(key) ?? new Set<string>();
    set.add(service);
    map.set(key, set);
  };
  for (const slice of snapshot.endpointSlices) {
    const service = slice.metadata.labels?.['kubernetes.io/service-name'];
    const namespace = slice.metadata.namespace ?? 'default';
    if (!service) continue;
    for (const endpoint of slice.endpoints) {
      const ref = endpoint.targetRef as { kind?: unknown; name?: unknown; namespace?: unknown } | undefined;
      if (ref?.kind !== 'Pod' || typeof ref.name !== 'string') continue;
      const podNamespace = typeof ref.namespace === 'string' && ref.namespace !== '' ? ref.namespace : namespace;
      const key = `${namespace}/${service}`;
      add(pods, `${podNamespace}/${ref.name}`, key);
      add(owners, `${podNamespace}/${ref.name}`, key);
      const found = index.ofPod(podNamespace, ref.name);
      if (found.workload !== null) add(owners, `${podNamespace}/${found.workload.name}`, key);
      else if (!index.hasPods)
        for (const prefix of namePrefixes(ref.name)) add(owners, `${podNamespace}/${prefix}`, key);
    }
  }
  const sorted = (map: Map<string, Set<string>>) => new Map([...map].map(([key, set]) => [key, [...set].sort()]));
  return { pods: sorted(pods), owners: sorted(owners) };
}

/** A Pod name without its last one and two dash-separated parts (its StatefulSet, DaemonSet or Deployment name). */
function namePrefixes(pod: string): string[] {
  const parts = pod.split('-');
  return [parts.slice(0, -1).join('-'), parts.slice(0, -2).join('-')].filter((prefix) => prefix !== '');
}

/** The Services by `namespace/pod` alone (see {@link serviceMapOf}). */
export function podServicesOf(snapshot: Pick<Snapshot, 'endpointSlices'>): Map<string, readonly string[]> {
  return new Map(serviceMapOf({ ...snapshot, pods: [], replicaSets: [] }).pods);
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
