/**
 * The PromQL each traffic-source preset sends to a cluster's Prometheus: which metrics, which reporter
 * or direction, grouped by which labels. Every preset is ONE instant query over the whole window
 * (`increase(...[window])`, summed `by` the labels it needs), so a cluster of 10,000 Services costs one
 * Prometheus round trip per interval. Each metric read is one part of the query, tagged with a
 * `zw_part` label (two parts grouped by the same labels would otherwise collide under `or`), and a last
 * part says since when the source has data in the window (its coverage).
 *
 * Which metric, which direction and why, per preset (upstream sources named; docs/traffic-sources.md):
 * - `istio`: Istio's standard metrics (istio.io "Istio Standard Metrics"): HTTP `istio_request_bytes_sum`
 *   + `istio_response_bytes_sum` and TCP `istio_tcp_received_bytes_total` + `istio_tcp_sent_bytes_total`,
 *   only `reporter="destination"`: the server-side proxy reports every request its Service served and
 *   every byte it answered, once; the client's proxy (`reporter="source"`) reports the same bytes again,
 *   and a client outside the mesh has none. TCP metrics are only reported for TCP (non-HTTP) traffic.
 * - `istio-ambient`: ztunnel's TCP metrics (istio/ztunnel `src/proxy/metrics.rs`, `CommonTrafficLabels`):
 *   the same two TCP counters, `reporter="destination"` (the destination node's ztunnel), with the
 *   `source_zone` and `destination_zone` labels of `LocalityLabels` (`unknown` when not known).
 * - `linkerd`: linkerd2-proxy's transport metrics `tcp_read_bytes_total` + `tcp_write_bytes_total` of the
 *   client's proxy (`direction="outbound"`, labelled `dst_namespace`/`dst_service`): each connection to a
 *   Service counted once, both directions; `dst_zone_locality` (`local`/`remote`, set by the destination
 *   controller for HAZL, linkerd2 `defaultEnhanceAddr`) says whether it crossed zones.
 * - `beyla`: `beyla_network_flow_bytes_total` with Beyla's default attributes (grafana/beyla
 *   `pkg/export/attributes/attr_defs.go`: `direction`, `k8s.{src,dst}.owner.name|type`,
 *   `k8s.{src,dst}.namespace`, `k8s.cluster.name`): flows are one-way, so a Service's bytes are the
 *   `direction="request"` flows to its workload and the `direction="response"` flows from it; its own
 *   calls (requests it sends, answers it receives) are not its traffic. A flow Beyla also reports against
 *   the Service in front of the workload (owner type `Service`) is the same bytes again and is skipped.
 *   Zones: `src_zone`/`dst_zone` when selected, else `beyla_network_inter_zone_bytes_total` when it
 *   carries the owner attributes.
 * - `opencost`: the Kubecost network-costs DaemonSet's `kubecost_pod_network_ingress_bytes_total` (what a
 *   Pod receives: requests to its Services) and `kubecost_pod_network_egress_bytes_total` (what it sends:
 *   their answers), `internet="false"`, each reported by the DaemonSet on the Pod's node only; zones from
 *   `same_zone` (OpenCost's collector) or `sameZone` (older network-costs releases).
 * - `custom`: the user's template.
 */

export const TRAFFIC_PRESETS = ['istio', 'istio-ambient', 'linkerd', 'beyla', 'opencost', 'custom'] as const;
export type TrafficPreset = (typeof TRAFFIC_PRESETS)[number];

/**
 * What each preset's series name: a Service, or a Pod (the worker maps Pods to Services through the
 * newest snapshot's EndpointSlices). A Record, so a new preset does not compile until it says which.
 */
export const PRESET_SERIES_NAME: Readonly<Record<TrafficPreset, 'service' | 'pod'>> = {
  istio: 'service',
  'istio-ambient': 'service',
  linkerd: 'service',
  beyla: 'pod',
  opencost: 'pod',
  custom: 'service',
};

/** What each preset reads, in a word (null: its name says it); the API's description of `preset` is built from it. */
export const PRESET_SUMMARIES: Readonly<Record<TrafficPreset, string | null>> = {
  istio: 'HTTP and TCP, sidecars',
  'istio-ambient': 'ztunnel',
  linkerd: null,
  beyla: null,
  opencost: 'Kubecost network costs',
  custom: null,
};

/** `istio (HTTP and TCP, sidecars), istio-ambient (ztunnel), …, opencost (…) or custom`. */
export function describePresets(): string {
  const names = TRAFFIC_PRESETS.map((preset) =>
    PRESET_SUMMARIES[preset] === null ? preset : `${preset} (${PRESET_SUMMARIES[preset]})`,
  );
  return `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

/** Placeholder of a custom template for the window, replaced by a PromQL duration such as `3600s`. */
export const WINDOW_PLACEHOLDER = '$window';
/** Placeholder of a custom template for the cluster matcher (`cluster="prod-eu-1"`). */
export const CLUSTER_PLACEHOLDER = '$cluster';

/** Labels a custom template's result must carry on every series. */
export const CUSTOM_TEMPLATE_LABELS = ['namespace', 'service'] as const;

/** The label that tells clusters apart in a shared Prometheus (Thanos, Mimir…), unless a source names another. */
export const DEFAULT_CLUSTER_LABEL = 'cluster';

/** A Prometheus label name (model/labels.go `LabelNameRE`). */
export const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Which of a shared Prometheus' clusters is this one: series with `label` = `value` (any, when value is null). */
export interface ClusterSelector {
  label: string;
  value: string | null;
}

export interface TrafficQuerySpec {
  preset: TrafficPreset;
  /** Length of the measured window, in seconds. */
  windowSeconds: number;
  /** Only for `custom`: PromQL with {@link WINDOW_PLACEHOLDER}, returning bytes by `namespace`, `service`. */
  template?: string | null;
  /** Default: label `cluster`, any value (series of several values are then ambiguous). */
  cluster?: ClusterSelector | null;
}

/** One metric a preset reads: its selector's matchers and what it is summed by. */
export interface QueryPart {
  id: string;
  metric: string;
  matchers: readonly string[];
  by: readonly string[];
}

/** The label carrying each series' part. */
export const PART_LABEL = 'zw_part';
/** The part saying since when the source has data in the window. */
export const COVERAGE_PART = 'coverage';

const DESTINATION = 'reporter="destination"';
const ISTIO_SERVICE = ['destination_service_namespace', 'destination_service_name'];
const ISTIO_ZONES = ['source_zone', 'destination_zone'];
const ISTIO_TCP: QueryPart[] = [
  {
    id: 'tcp_received',
    metric: 'istio_tcp_received_bytes_total',
    matchers: [DESTINATION],
    by: [...ISTIO_SERVICE, ...ISTIO_ZONES],
  },
  {
    id: 'tcp_sent',
    metric: 'istio_tcp_sent_bytes_total',
    matchers: [DESTINATION],
    by: [...ISTIO_SERVICE, ...ISTIO_ZONES],
  },
];
const LINKERD_BY = ['dst_namespace', 'dst_service', 'dst_zone_locality'];
const LINKERD_OUTBOUND = ['direction="outbound"', 'dst_service!=""'];
export const BEYLA_END_LABELS = {
  src: { namespace: 'k8s_src_namespace', owner: 'k8s_src_owner_name', type: 'k8s_src_owner_type', zone: 'src_zone' },
  dst: { namespace: 'k8s_dst_namespace', owner: 'k8s_dst_owner_name', type: 'k8s_dst_owner_type', zone: 'dst_zone' },
} as const;
const BEYLA_ENDS = Object.values(BEYLA_END_LABELS).flatMap((end) => [end.namespace, end.owner, end.type]);
const KUBECOST_BY = ['namespace', 'pod_name', 'pod', 'same_zone', 'sameZone'];
const NOT_INTERNET = 'internet="false"';

export const PRESET_PARTS: Record<Exclude<TrafficPreset, 'custom'>, readonly QueryPart[]> = {
  istio: [
    { id: 'http_request', metric: 'istio_request_bytes_sum', matchers: [DESTINATION], by: ISTIO_SERVICE },
    { id: 'http_response', metric: 'istio_response_bytes_sum', matchers: [DESTINATION], by: ISTIO_SERVICE },
    ...ISTIO_TCP,
  ],
  'istio-ambient': ISTIO_TCP,
  linkerd: [
    { id: 'read', metric: 'tcp_read_bytes_total', matchers: LINKERD_OUTBOUND, by: LINKERD_BY },
    { id: 'write', metric: 'tcp_write_bytes_total', matchers: LINKERD_OUTBOUND, by: LINKERD_BY },
  ],
  beyla: [
    {
      id: 'flow',
      metric: 'beyla_network_flow_bytes_total',
      matchers: [],
      by: [...BEYLA_ENDS, 'direction', BEYLA_END_LABELS.src.zone, BEYLA_END_LABELS.dst.zone],
    },
    {
      id: 'inter_zone',
      metric: 'beyla_network_inter_zone_bytes_total',
      matchers: [],
      by: [...BEYLA_ENDS, 'direction'],
    },
  ],
  opencost: [
    { id: 'ingress', metric: 'kubecost_pod_network_ingress_bytes_total', matchers: [NOT_INTERNET], by: KUBECOST_BY },
    { id: 'egress', metric: 'kubecost_pod_network_egress_bytes_total', matchers: [NOT_INTERNET], by: KUBECOST_BY },
  ],
};

/** The preset's metric names (what a `wrong-labels` look-up reads). */
export function presetMetrics(preset: TrafficPreset): string[] {
  return preset === 'custom' ? [] : [...new Set(PRESET_PARTS[preset].map((part) => part.metric))];
}

export function clusterSelectorOf(spec: Pick<TrafficQuerySpec, 'cluster'>): ClusterSelector {
  return spec.cluster ?? { label: DEFAULT_CLUSTER_LABEL, value: null };
}

/** A PromQL string literal (double-quoted; the escapes are Go's, which JSON's are a subset of). */
function quoted(value: string): string {
  return JSON.stringify(value);
}

function clusterMatchers(cluster: ClusterSelector): string[] {
  return cluster.value === null ? [] : [`${cluster.label}=${quoted(cluster.value)}`];
}

function selector(metric: string, matchers: readonly string[]): string {
  return matchers.length === 0 ? metric : `${metric}{${matchers.join(', ')}}`;
}

function tagged(expression: string, part: string): string {
  return `label_replace(${expression}, "${PART_LABEL}", "${part}", "", "")`;
}

/** Subquery resolution of the coverage part: about 1/60 of the window. */
export function coverageStepSeconds(windowSeconds: number): number {
  return Math.max(1, Math.ceil(windowSeconds / 60));
}

export function trafficQuery(spec: TrafficQuerySpec): string {
  const window = `${Math.round(spec.windowSeconds)}s`;
  const cluster = clusterSelectorOf(spec);
  if (spec.preset === 'custom') {
    const matcher = cluster.value === null ? `${cluster.label}=~".*"` : `${cluster.label}=${quoted(cluster.value)}`;
    return (spec.template ?? '').split(WINDOW_PLACEHOLDER).join(window).split(CLUSTER_PLACEHOLDER).join(matcher);
  }
  const parts = PRESET_PARTS[spec.preset].map((part) => {
    const by = [...part.by, cluster.label].join(', ');
    const range = `${selector(part.metric, [...part.matchers, ...clusterMatchers(cluster)])}[${window}]`;
    return tagged(`sum by (${by}) (increase(${range}))`, part.id);
  });
  const names = presetMetrics(spec.preset).join('|');
  const all = selector('', [`__name__=~${quoted(names)}`, ...clusterMatchers(cluster)]);
  const step = coverageStepSeconds(spec.windowSeconds);
  const coverage = tagged(`min_over_time(timestamp(count(${all}))[${window}:${step}s])`, COVERAGE_PART);
  return [...parts, coverage].join(' or ');
}

/**
 * A finer look at the coverage when the query's own (a step of 1/60 of the window) says the source has
 * data for only part of it: the same subquery over the last `rangeSeconds`, at a step of 1/120 of that
 * range (at least 1 s). Only a `partial` answer costs this second round trip.
 */
export function coverageQuery(
  spec: TrafficQuerySpec,
  rangeSeconds: number,
): { query: string; stepSeconds: number } | null {
  if (spec.preset === 'custom') return null;
  const cluster = clusterSelectorOf(spec);
  const names = presetMetrics(spec.preset).join('|');
  const all = selector('', [`__name__=~${quoted(names)}`, ...clusterMatchers(cluster)]);
  const range = Math.max(1, Math.ceil(rangeSeconds));
  const step = Math.max(1, Math.ceil(range / 120));
  return { query: `min_over_time(timestamp(count(${all}))[${range}s:${step}s])`, stepSeconds: step };
}

/**
 * The query that shows which labels the preset's series really carry, for a `wrong-labels` answer: a
 * few raw series of its metrics, without the preset's `sum by` (which keeps only the labels it names).
 */
export function labelDiscoveryQuery(spec: TrafficQuerySpec): string | null {
  if (spec.preset === 'custom') return null;
  const cluster = clusterSelectorOf(spec);
  const names = presetMetrics(spec.preset).join('|');
  return `topk(20, ${selector('', [`__name__=~${quoted(names)}`, ...clusterMatchers(cluster)])})`;
}

/** Why a custom template is refused, or null. */
export function customTemplateProblem(template: string): string | null {
  if (!template.includes(WINDOW_PLACEHOLDER)) return `must contain the window placeholder ${WINDOW_PLACEHOLDER}`;
  const missing = CUSTOM_TEMPLATE_LABELS.filter((label) => !new RegExp(`\\b${label}\\b`).test(template));
  if (missing.length > 0)
    return `must group by the labels ${missing.join(', ')} (e.g. sum by (namespace, service) (...))`;
  return null;
}
