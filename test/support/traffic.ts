import { type EndpointSlice, type KubernetesList, SERVICE_NAME_LABEL } from '@zw/core';
import type { ExportedCounter } from './prometheus.js';

/** Bytes per second that make `gb` GB in a 730-hour month (the savings model's unit). */
export function bytesPerSecondOf(gbPerMonth: number): number {
  return (gbPerMonth * 1e9) / (730 * 3600);
}

/** The cluster with a Pod `targetRef` on every endpoint, as the EndpointSlice controller writes them. */
export function withPodRefs(list: KubernetesList): KubernetesList {
  return {
    ...list,
    items: list.items.map((item) => {
      if (item.kind !== 'EndpointSlice') return item;
      const slice = item as EndpointSlice;
      return {
        ...slice,
        endpoints: slice.endpoints.map((endpoint, index) => ({
          ...endpoint,
          targetRef: { kind: 'Pod', namespace: slice.metadata.namespace, name: `${slice.metadata.name}-pod-${index}` },
        })),
      };
    }),
  };
}

/** What a Service really moves, in the tests' exporter. */
export interface TrafficPlan {
  namespace: string;
  name: string;
  gbPerMonth: number;
  /** Share of its bytes that cross zones (for the sources that see zones). */
  crossZone: number;
}

interface Pod {
  name: string;
  zone: string;
}

function podsOf(list: KubernetesList, plan: TrafficPlan): Pod[] {
  return list.items
    .filter(
      (item): item is EndpointSlice =>
        item.kind === 'EndpointSlice' &&
        item.metadata.namespace === plan.namespace &&
        item.metadata.labels?.[SERVICE_NAME_LABEL] === plan.name,
    )
    .flatMap((slice) =>
      slice.endpoints.map((endpoint) => ({
        name: (endpoint.targetRef as { name: string }).name,
        zone: endpoint.zone ?? '',
      })),
    );
}

/**
 * The counters of every preset for the planned Services, consistent with the cluster (its Pods and their
 * zones), scraped once a second: each counter grows by its bytes per second at each scrape. Every preset
 * also has series it must ignore (the other reporter or direction, internet egress, an unknown Pod).
 */
export function presetCounters(list: KubernetesList, plans: readonly TrafficPlan[]): ExportedCounter[] {
  const zones = [...new Set(plans.flatMap((plan) => podsOf(list, plan).map((pod) => pod.zone)))].sort();
  const counters: ExportedCounter[] = [];
  const add = (name: string, labels: Record<string, string>, bytesPerScrape: number) =>
    counters.push({ name, labels, bytesPerScrape });
  for (const plan of plans) {
    const rate = bytesPerSecondOf(plan.gbPerMonth);
    const service = { namespace: plan.namespace, name: plan.name };
    const istio = { destination_service_namespace: service.namespace, destination_service_name: service.name };
    add('istio_request_bytes_sum', { ...istio, reporter: 'destination' }, rate / 4);
    add('istio_response_bytes_sum', { ...istio, reporter: 'destination' }, (3 * rate) / 4);
    add('istio_response_bytes_sum', { ...istio, reporter: 'source' }, 7 * rate);
    const linkerd = { dst_namespace: service.namespace, dst_service: service.name };
    add('tcp_write_bytes_total', { ...linkerd, direction: 'outbound' }, rate / 4);
    add('tcp_read_bytes_total', { ...linkerd, direction: 'outbound' }, (3 * rate) / 4);
    add('tcp_read_bytes_total', { ...linkerd, direction: 'inbound' }, 5 * rate);
    add('zw_test_service_bytes_total', { namespace: service.namespace, service: service.name }, rate);
    const pods = podsOf(list, plan);
    for (const pod of pods) {
      const inZone = (rate * (1 - plan.crossZone)) / pods.length;
      const crossing = (rate * plan.crossZone) / pods.length;
      const otherZone = zones.find((zone) => zone !== pod.zone) ?? 'elsewhere';
      const dst = { k8s_dst_namespace: service.namespace, k8s_dst_name: pod.name, k8s_dst_type: 'Pod' };
      add('beyla_network_flow_bytes_total', { ...dst, src_zone: pod.zone, dst_zone: pod.zone }, inZone);
      add('beyla_network_flow_bytes_total', { ...dst, src_zone: otherZone, dst_zone: pod.zone }, crossing);
      const egress = { namespace: service.namespace, pod_name: pod.name, same_region: 'true' };
      add('kubecost_pod_network_egress_bytes_total', { ...egress, same_zone: 'true', internet: 'false' }, inZone);
      add('kubecost_pod_network_egress_bytes_total', { ...egress, same_zone: 'false', internet: 'false' }, crossing);
      add('kubecost_pod_network_egress_bytes_total', { ...egress, same_zone: 'false', internet: 'true' }, 9 * rate);
    }
  }
  const stranger = { k8s_dst_namespace: 'elsewhere', k8s_dst_name: 'no-such-pod', k8s_dst_type: 'Pod' };
  add('beyla_network_flow_bytes_total', { ...stranger, src_zone: 'a', dst_zone: 'b' }, 1000);
  return counters;
}
