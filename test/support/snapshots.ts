import {
  CAPTURED_AT_ANNOTATION,
  generateFleetSnapshot,
  type KubernetesList,
  seededRandom,
  SERVICE_NAME_LABEL,
} from '@zw/core';

export const CAPTURED_AT = CAPTURED_AT_ANNOTATION;
const TOPOLOGY_MODE = 'service.kubernetes.io/topology-mode';

type Item = KubernetesList['items'][number];

export function fleet(services: number, endpointsPerService: number, seed = 1): KubernetesList {
  return generateFleetSnapshot({ nodes: 12, zones: 3, services, endpointsPerService, autoShare: 0.5, seed });
}

export function capturedAt(list: KubernetesList, at: Date): KubernetesList {
  return { ...list, metadata: { annotations: { ...list.metadata.annotations, [CAPTURED_AT]: at.toISOString() } } };
}

/**
 * A changed copy of a cluster, as time passes: some Services lose or gain their topology annotation
 * (their hints change), a few disappear. Deterministic per seed.
 */
export function evolve(list: KubernetesList, seed: number): KubernetesList {
  const random = seededRandom(seed);
  const gone = new Set<string>();
  const items: Item[] = [];
  const generated = list.items.filter((item) => item.kind === 'Service' && item.metadata.name.startsWith('svc-'));
  const forced = generated[Math.floor(random() * generated.length)]; // at least one Service always changes
  for (const item of list.items) {
    if (item.kind !== 'Service') continue;
    const key = `${item.metadata.namespace}/${item.metadata.name}`;
    if (item !== forced && item.metadata.name.startsWith('svc-') && random() < 0.05) gone.add(key);
  }
  for (const item of list.items) {
    if (item.kind === 'Service') {
      if (gone.has(`${item.metadata.namespace}/${item.metadata.name}`)) continue;
      if (item === forced || (item.metadata.name.startsWith('svc-') && random() < 0.15)) {
        const annotations = { ...item.metadata.annotations };
        if (annotations[TOPOLOGY_MODE]) delete annotations[TOPOLOGY_MODE];
        else annotations[TOPOLOGY_MODE] = 'Auto';
        items.push({ ...item, metadata: { ...item.metadata, annotations } });
        continue;
      }
    }
    if (item.kind === 'EndpointSlice') {
      const owner = `${item.metadata.namespace}/${item.metadata.labels?.[SERVICE_NAME_LABEL]}`;
      if (gone.has(owner)) continue;
    }
    items.push(item);
  }
  return { ...list, items };
}

/** A sequence of `count` snapshots of one evolving cluster, one minute apart, oldest first. */
export function timeline(count: number, services: number, endpointsPerService: number, start: Date): KubernetesList[] {
  const sequence: KubernetesList[] = [];
  let current = fleet(services, endpointsPerService);
  for (let i = 0; i < count; i++) {
    if (i > 0) current = i % 4 === 3 ? sequence[i - 2] : evolve(current, 1000 + i); // revisit an older state now and then
    sequence.push(capturedAt(current, new Date(start.getTime() + i * 60_000)));
  }
  return sequence;
}
