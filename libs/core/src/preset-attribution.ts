/**
 * Per preset: which Service a series' bytes belong to, and whether they crossed zones. Each preset's
 * series (see traffic-presets.ts) name the Service (Istio, Linkerd, custom) or the Pods and workloads
 * behind it (Beyla, OpenCost), mapped through the snapshot's {@link ServiceMap}.
 */
import type { ServiceMap } from './service-map.js';
import { BEYLA_END_LABELS, PART_LABEL, type TrafficPreset } from './traffic-presets.js';

/** One series of an instant vector (Prometheus' `data.result[]` with `resultType: vector`). */
export interface PromSample {
  metric: Readonly<Record<string, string>>;
  value: readonly [number, string];
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

export const ATTRIBUTIONS: Record<TrafficPreset, Attribute> = {
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
