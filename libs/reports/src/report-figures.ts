/** The arithmetic the report's parts share: GB-and-cost figures, grouping, Service keys, name order. */
import type { Figure } from './report-model.js';

export const ZERO: Figure = { crossZoneGb: 0, cost: 0 };

export const subtract = (a: Figure, b: Figure): Figure => ({
  crossZoneGb: a.crossZoneGb - b.crossZoneGb,
  cost: a.cost - b.cost,
});

/** Byte order, as the rest of zonewise sorts names. */
export function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}

export function serviceKeyOf(row: { clusterId: string; namespace: string; name: string }): string {
  return `${row.clusterId}/${row.namespace}/${row.name}`;
}
