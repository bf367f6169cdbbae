import {
  type EndpointSlice,
  type KubernetesList,
  type OwnedObject,
  SERVICE_NAME_LABEL,
  type TrafficPreset,
} from '@zw/core';
import type { ExportedCounter } from './prometheus.js';

/**
 * Traffic the tests' exporters emit, in the exact shape of each upstream metric, with the truth it
 * stands for: who calls which Service, how many bytes each way, and the share crossing zones. Each
 * preset's truth is computed here by hand from the calls (what the Service's endpoints served and
 * answered), never from zonewise's own code.
 */

/** Bytes per second that make `gb` GB in a 730-hour month (the savings model's unit). */
export function bytesPerSecondOf(gbPerMonth: number): number {
  return (gbPerMonth * 1e9) / (730 * 3600);
}

/** The workload behind a Service's Pods (default: a Deployment named `<service>-app`, through a ReplicaSet). */
export type OwnerOf = (namespace: string, service: string) => { kind: string; name: string };

const defaultOwner: OwnerOf = (_, service) => ({ kind: 'Deployment', name: `${service}-app` });

/**
 * The cluster as kubectl lists it with `…,pods,replicasets`: every endpoint's `targetRef` names its Pod,
 * each Pod is owned as `ownerOf` says (a Deployment through its ReplicaSet `<name>-5d4f7b9c8`, other
 * kinds directly), and the Pods and ReplicaSets are in the List.
 */
export function withWorkloads(list: KubernetesList, ownerOf: OwnerOf = defaultOwner): KubernetesList {
  const pods: OwnedObject[] = [];
  const replicaSets = new Map<string, OwnedObject>();
  const items = list.items.map((item) => {
    if (item.kind !== 'EndpointSlice') return item;
    const slice = item as EndpointSlice;
    const namespace = slice.metadata.namespace ?? 'default';
    const service = slice.metadata.labels?.[SERVICE_NAME_LABEL] ?? slice.metadata.name;
    const owner = ownerOf(namespace, service);
    return {
      ...slice,
      endpoints: slice.endpoints.map((endpoint, index) => {
        const name = podNameOf(owner, slice.metadata.name, index);
        const controller =
          owner.kind === 'Deployment' ? { kind: 'ReplicaSet', name: `${owner.name}-5d4f7b9c8` } : owner;
        pods.push({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name, namespace, ownerReferences: [{ apiVersion: 'apps/v1', ...controller, controller: true }] },
        });
        if (owner.kind === 'Deployment') {
          replicaSets.set(`${namespace}/${owner.name}`, {
            apiVersion: 'apps/v1',
            kind: 'ReplicaSet',
            metadata: {
              name: `${owner.name}-5d4f7b9c8`,
              namespace,
              ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: owner.name, controller: true }],
            },
          });
        }
        return { ...endpoint, targetRef: { kind: 'Pod', namespace, name } };
      }),
    };
  });
  return { ...list, items: [...items, ...pods, ...replicaSets.values()] as KubernetesList['items'] };
}

function podNameOf(owner: { kind: string; name: string }, slice: string, index: number): string {
  const suffix = `${slice.slice(-5)}${index}`;
  return owner.kind === 'Deployment' ? `${owner.name}-5d4f7b9c8-${suffix}` : `${owner.name}-${suffix}`;
}

/** A Service's Pods with their zones, and the workload owning them, from a list made by {@link withWorkloads}. */
export interface ServicePods {
  owner: { kind: string; name: string };
  pods: { name: string; zone: string }[];
}

export function podsOfService(list: KubernetesList, namespace: string, name: string): ServicePods {
  const slices = list.items.filter(
    (item): item is EndpointSlice =>
      item.kind === 'EndpointSlice' &&
      item.metadata.namespace === namespace &&
      item.metadata.labels?.[SERVICE_NAME_LABEL] === name,
  );
  const pods = slices.flatMap((slice) =>
    slice.endpoints.map((endpoint) => ({
      name: (endpoint.targetRef as { name: string }).name,
      zone: endpoint.zone ?? '',
    })),
  );
  const owned = new Map(
    list.items
      .filter((item) => item.kind === 'Pod')
      .map((item) => [`${item.metadata.namespace}/${item.metadata.name}`, item as unknown as OwnedObject]),
  );
  const replicaSets = new Map(
    list.items
      .filter((item) => item.kind === 'ReplicaSet')
      .map((item) => [`${item.metadata.namespace}/${item.metadata.name}`, item as unknown as OwnedObject]),
  );
  const reference = owned.get(`${namespace}/${pods[0]?.name}`)?.metadata.ownerReferences?.[0];
  if (reference === undefined) throw new Error(`${namespace}/${name}: no Pods in the list (see withWorkloads)`);
  const top =
    reference.kind === 'ReplicaSet'
      ? replicaSets.get(`${namespace}/${reference.name}`)!.metadata.ownerReferences![0]
      : reference;
  return { owner: { kind: top.kind, name: top.name }, pods };
}

// ---------------------------------------------------------------------------------------------
// Calls and what each preset's metrics say of them
// ---------------------------------------------------------------------------------------------

/**
 * Clients calling a Service: `from` is another Service of the cluster (its Pods make the calls) or an
 * outside workload (a namespace and owner that back no Service). Volumes are GB per month each way.
 */
export interface Call {
  from: { namespace: string; owner: string; service?: string };
  to: { namespace: string; name: string };
  requestGb: number;
  responseGb: number;
  /** Share of the bytes whose client runs in another zone than the endpoint. */
  crossZone: number;
  /** HTTP (Istio's HTTP metrics) or plain TCP (Istio's TCP metrics, from ztunnel with zones). */
  protocol: 'http' | 'tcp';
}

export interface TrafficOptions {
  /** The exporter's `cluster` label (and Beyla's `k8s_cluster_name`); each value gets every series. */
  clusters?: readonly string[];
  /** Each cluster's byte rates are multiplied by its factor (a second cluster moves other volumes). */
  factors?: readonly number[];
  /** Services whose Kubecost series spell the zone label `sameZone` (older network-costs releases). */
  camelCaseZone?: ReadonlySet<string>;
}

/**
 * Every preset's series for these calls, in each upstream metric's shape, plus the series each preset
 * must ignore (the other reporter or direction, internet egress, a Service copy of a Beyla flow).
 */
export function upstreamCounters(
  list: KubernetesList,
  calls: readonly Call[],
  options: TrafficOptions = {},
): ExportedCounter[] {
  const clusters = options.clusters ?? ['measured'];
  const counters: ExportedCounter[] = [];
  clusters.forEach((cluster, index) => {
    // One series per label set, as every exporter writes it: Pods in one zone share their series.
    const factor = options.factors?.[index] ?? 1;
    for (const call of calls) {
      counters.push(...callCounters(list, call, factor, { cluster, k8s_cluster_name: cluster }, options));
    }
    counters.push({
      name: 'beyla_network_flow_bytes_total',
      labels: {
        cluster,
        k8s_cluster_name: cluster,
        direction: 'request',
        k8s_src_namespace: 'elsewhere',
        k8s_src_owner_name: 'scanner',
        k8s_src_owner_type: 'Deployment',
        k8s_dst_namespace: 'elsewhere',
        k8s_dst_owner_name: 'no-such-workload',
        k8s_dst_owner_type: 'Deployment',
      },
      bytesPerScrape: 1000,
    });
  });
  return merged(counters);
}

/** Counters with the same name and labels summed into one series. */
function merged(counters: readonly ExportedCounter[]): ExportedCounter[] {
  const byKey = new Map<string, ExportedCounter>();
  for (const counter of counters) {
    const key = `${counter.name}${JSON.stringify(Object.entries(counter.labels).sort())}`;
    const existing = byKey.get(key);
    if (existing) existing.bytesPerScrape += counter.bytesPerScrape;
    else byKey.set(key, { ...counter, labels: { ...counter.labels } });
  }
  return [...byKey.values()];
}

function callCounters(
  list: KubernetesList,
  call: Call,
  factor: number,
  clusterLabels: Record<string, string>,
  options: TrafficOptions,
): ExportedCounter[] {
  const out: ExportedCounter[] = [];
  const add = (name: string, labels: Record<string, string>, bytesPerScrape: number) => {
    if (bytesPerScrape > 0) out.push({ name, labels: { ...clusterLabels, ...labels }, bytesPerScrape });
  };
  const request = bytesPerSecondOf(call.requestGb) * factor;
  const response = bytesPerSecondOf(call.responseGb) * factor;
  const server = podsOfService(list, call.to.namespace, call.to.name);
  const zones = [...new Set(server.pods.map((pod) => pod.zone))].sort();
  const otherZone = (zone: string) => zones.find((candidate) => candidate !== zone) ?? `${zone}-other`;
  const shares = [
    { share: 1 - call.crossZone, crossing: false },
    { share: call.crossZone, crossing: true },
  ];
  const svc = { destination_service_namespace: call.to.namespace, destination_service_name: call.to.name };
  const client = { source_workload: call.from.owner, source_workload_namespace: call.from.namespace };

  // Istio with sidecars (HTTP) and ztunnel (TCP, with zones): the destination reporter, and the source
  // reporter's copy of the same bytes (which the presets must not count again).
  if (call.protocol === 'http') {
    for (const reporter of ['destination', 'source']) {
      add('istio_request_bytes_sum', { reporter, ...svc, ...client }, request);
      add('istio_response_bytes_sum', { reporter, ...svc, ...client }, response);
    }
  } else {
    for (const pod of server.pods) {
      for (const { share, crossing } of shares) {
        const zones = { source_zone: crossing ? otherZone(pod.zone) : pod.zone, destination_zone: pod.zone };
        for (const reporter of ['destination', 'source']) {
          const labels = { reporter, ...svc, ...client, ...zones, destination_workload: server.owner.name };
          add('istio_tcp_received_bytes_total', labels, (request * share) / server.pods.length);
          add('istio_tcp_sent_bytes_total', labels, (response * share) / server.pods.length);
        }
      }
    }
  }

  // Linkerd: the client's proxy, outbound, with the destination controller's zone locality; and the
  // server's proxy, inbound (no dst_ labels), which must not count again.
  for (const { share, crossing } of shares) {
    const labels = {
      direction: 'outbound',
      namespace: call.from.namespace,
      deployment: call.from.owner,
      dst_namespace: call.to.namespace,
      dst_service: call.to.name,
      dst_zone_locality: crossing ? 'remote' : 'local',
    };
    add('tcp_write_bytes_total', labels, request * share);
    add('tcp_read_bytes_total', labels, response * share);
  }
  add('tcp_read_bytes_total', { direction: 'inbound', namespace: call.to.namespace }, request);

  // Beyla: one-way flows between owners with its default attributes, the same flows reported again
  // against the Service in front of the workload, and the inter-zone metric with owner attributes
  // (and direction) selected.
  const end = (side: 'src' | 'dst', namespace: string, owner: string, type: string) => ({
    [`k8s_${side}_namespace`]: namespace,
    [`k8s_${side}_owner_name`]: owner,
    [`k8s_${side}_owner_type`]: type,
  });
  const clientEnd = (side: 'src' | 'dst') => end(side, call.from.namespace, call.from.owner, 'Deployment');
  const serverEnd = (side: 'src' | 'dst') => end(side, call.to.namespace, server.owner.name, server.owner.kind);
  const serviceEnd = (side: 'src' | 'dst') => end(side, call.to.namespace, call.to.name, 'Service');
  add('beyla_network_flow_bytes_total', { direction: 'request', ...clientEnd('src'), ...serverEnd('dst') }, request);
  add('beyla_network_flow_bytes_total', { direction: 'response', ...serverEnd('src'), ...clientEnd('dst') }, response);
  add('beyla_network_flow_bytes_total', { direction: 'request', ...clientEnd('src'), ...serviceEnd('dst') }, request);
  add('beyla_network_flow_bytes_total', { direction: 'response', ...serviceEnd('src'), ...clientEnd('dst') }, response);
  const interZone = { src_zone: 'zone-x', dst_zone: 'zone-y' };
  add(
    'beyla_network_inter_zone_bytes_total',
    { direction: 'request', ...clientEnd('src'), ...serverEnd('dst'), ...interZone },
    request * call.crossZone,
  );
  add(
    'beyla_network_inter_zone_bytes_total',
    { direction: 'response', ...serverEnd('src'), ...clientEnd('dst'), ...interZone },
    response * call.crossZone,
  );

  // Kubecost network costs: what each Pod receives and sends, by whether the other end is in its zone.
  const zoneLabel = (service: string) => (options.camelCaseZone?.has(service) ? 'sameZone' : 'same_zone');
  for (const pod of server.pods) {
    for (const { share, crossing } of shares) {
      const labels = {
        namespace: call.to.namespace,
        pod_name: pod.name,
        internet: 'false',
        same_region: 'true',
        [zoneLabel(call.to.name)]: crossing ? 'false' : 'true',
      };
      add('kubecost_pod_network_ingress_bytes_total', labels, (request * share) / server.pods.length);
      add('kubecost_pod_network_egress_bytes_total', labels, (response * share) / server.pods.length);
    }
    add(
      'kubecost_pod_network_egress_bytes_total',
      { namespace: call.to.namespace, pod_name: pod.name, internet: 'true', same_region: 'false', same_zone: 'false' },
      9 * response,
    );
  }
  const callers = call.from.service
    ? podsOfService(list, call.from.namespace, call.from.service).pods
    : [{ name: `${call.from.owner}-7f6d9-abcde`, zone: zones[0] }];
  for (const pod of callers) {
    for (const { share, crossing } of shares) {
      const labels = {
        namespace: call.from.namespace,
        pod_name: pod.name,
        internet: 'false',
        same_region: 'true',
        [zoneLabel(call.from.service ?? '')]: crossing ? 'false' : 'true',
      };
      add('kubecost_pod_network_egress_bytes_total', labels, (request * share) / callers.length);
      add('kubecost_pod_network_ingress_bytes_total', labels, (response * share) / callers.length);
    }
  }

  add('zw_test_service_bytes_total', { namespace: call.to.namespace, service: call.to.name }, request + response);
  return out;
}

/** A Service's truth: GB per month, and the share crossing zones (null where the preset sees no zones). */
export interface ServiceTruth {
  gbPerMonth: number;
  crossZone: number | null;
}

/**
 * What each preset must report per Service, by hand from the calls: the bytes its endpoints served and
 * answered, counted once. Kubecost's network costs carry no connection direction, so for `opencost` a
 * Service's Pods' own calls count as its traffic too (docs/traffic-sources.md says so).
 */
export function truthOf(preset: TrafficPreset, calls: readonly Call[]): Map<string, ServiceTruth> {
  const sums = new Map<string, { bytes: number; zoned: number; crossing: number }>();
  const credit = (key: string, gb: number, crossZone: number | null) => {
    const entry = sums.get(key) ?? { bytes: 0, zoned: 0, crossing: 0 };
    entry.bytes += gb;
    if (crossZone !== null) {
      entry.zoned += gb;
      entry.crossing += gb * crossZone;
    }
    sums.set(key, entry);
  };
  for (const call of calls) {
    const gb = call.requestGb + call.responseGb;
    const to = `${call.to.namespace}/${call.to.name}`;
    switch (preset) {
      case 'istio':
        credit(to, gb, call.protocol === 'tcp' ? call.crossZone : null);
        break;
      case 'istio-ambient':
        if (call.protocol === 'tcp') credit(to, gb, call.crossZone);
        break;
      case 'linkerd':
      case 'beyla':
        credit(to, gb, call.crossZone);
        break;
      case 'opencost':
        credit(to, gb, call.crossZone);
        if (call.from.service) credit(`${call.from.namespace}/${call.from.service}`, gb, call.crossZone);
        break;
      case 'custom':
        credit(to, gb, null);
        break;
    }
  }
  return new Map(
    [...sums].map(([key, sum]) => [
      key,
      { gbPerMonth: sum.bytes, crossZone: sum.zoned > 0 ? sum.crossing / sum.zoned : null },
    ]),
  );
}

// ---------------------------------------------------------------------------------------------
// The simple plan: one outside client per Service
// ---------------------------------------------------------------------------------------------

/** What a Service really moves, in the tests' exporter. */
export interface TrafficPlan {
  namespace: string;
  name: string;
  gbPerMonth: number;
  /** Share of its bytes that cross zones. */
  crossZone: number;
}

/** Calls from an outside load generator making each plan's volume (a quarter requests, the rest answers). */
export function callsOf(plans: readonly TrafficPlan[]): Call[] {
  return plans.map((plan) => ({
    from: { namespace: 'load', owner: 'loadgen' },
    to: { namespace: plan.namespace, name: plan.name },
    requestGb: plan.gbPerMonth / 4,
    responseGb: (3 * plan.gbPerMonth) / 4,
    crossZone: plan.crossZone,
    protocol: 'tcp',
  }));
}

/** Every preset's series for the planned Services (see {@link upstreamCounters}). */
export function presetCounters(
  list: KubernetesList,
  plans: readonly TrafficPlan[],
  options: TrafficOptions = {},
): ExportedCounter[] {
  return upstreamCounters(list, callsOf(plans), options);
}
