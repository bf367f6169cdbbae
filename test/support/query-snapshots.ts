import type { KubernetesList, Service } from '@zw/core';

type Item = KubernetesList['items'][number];

/** The List's Services. */
export function servicesOf(list: KubernetesList): Service[] {
  return list.items.filter((item): item is Service => item.kind === 'Service');
}

/**
 * A copy of the List in which the Services `pick` chooses get `change` applied to their annotations (a
 * value of null removes the annotation).
 */
export function withServiceAnnotations(
  list: KubernetesList,
  pick: (service: Service, index: number) => boolean,
  change: Record<string, string | null>,
): KubernetesList {
  let index = -1;
  const items: Item[] = list.items.map((item) => {
    if (item.kind !== 'Service') return item;
    index++;
    if (!pick(item, index)) return item;
    const annotations: Record<string, string> = { ...item.metadata.annotations };
    for (const [key, value] of Object.entries(change)) {
      if (value === null) delete annotations[key];
      else annotations[key] = value;
    }
    return { ...item, metadata: { ...item.metadata, annotations } };
  });
  return { ...list, items };
}
