/**
 * What a failed allocation would have cost: when the EndpointSlice controller finds no allocation
 * within its overload threshold (`topologycache.go getAllocations`, MinAllocationExceedsOverloadThreshold),
 * the allocation it would have made without the threshold and the overload that allocation brings.
 */
import { expectedOverloadByZone, normalizedOrigins, type TrafficEndpoint } from './traffic-model.js';

/**
 * The best proportional integer allocation of `endpointCount` endpoints over the zones of `shares`
 * (largest remainder), with at least one endpoint per zone when there are enough endpoints. This is
 * what a Service would get if the controller ignored its overload threshold, so the analysis can say
 * which overload the controller avoided (4 endpoints over 3 equal zones: 2/1/1, 33%).
 *
 * Decision: ties (equal remainders, equal surpluses) go to the zone first in byte-wise name order;
 * when no share is positive, zones count as equal.
 */
export function proportionalAllocation(
  endpointCount: number,
  shares: ReadonlyMap<string, number>,
): Record<string, number> {
  const origins = normalizedOrigins(shares);
  if (origins.length === 0) return {};
  const equal = origins.every((origin) => origin.share === 0);
  const quotas = origins.map((origin) => ({
    zone: origin.zone,
    quota: (equal ? 1 / origins.length : origin.share) * endpointCount,
  }));
  const allocation = quotas.map(({ zone, quota }) => ({ zone, quota, count: Math.floor(quota) }));
  let remaining = endpointCount - allocation.reduce((sum, zone) => sum + zone.count, 0);
  const byRemainder = [...allocation].sort((a, b) => b.quota - b.count - (a.quota - a.count));
  for (const zone of byRemainder) {
    if (remaining <= 0) break;
    zone.count += 1;
    remaining -= 1;
  }
  if (endpointCount >= allocation.length) {
    for (const zone of allocation) {
      if (zone.count > 0) continue;
      const donor = allocation
        .filter((other) => other.count > 1)
        .reduce((best, other) => (other.count - other.quota > best.count - best.quota ? other : best));
      donor.count -= 1;
      zone.count = 1;
    }
  }
  return Object.fromEntries(allocation.map(({ zone, count }) => [zone, count]));
}

/**
 * Expected overload per zone if each zone's allocated endpoints were hinted for their own zone (the
 * controller's same-zone assignment), through the same kube-proxy rules as any other Service.
 */
export function overloadOfAllocation(
  allocation: Readonly<Record<string, number>>,
  originShares: ReadonlyMap<string, number>,
): Record<string, number> {
  const endpoints: TrafficEndpoint[] = Object.entries(allocation).flatMap(([zone, count]) =>
    Array.from({ length: count }, (_, index) => ({
      address: `${zone}/${index}`,
      zone,
      ready: true,
      zoneHints: [zone],
      nodeHints: [],
    })),
  );
  return expectedOverloadByZone({ endpoints, originShares });
}
