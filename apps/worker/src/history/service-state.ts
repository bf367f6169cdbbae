import type { HintState, RoutingMode } from '@zw/db';
import { createHash } from 'node:crypto';

/** Per-zone allocation of one Service, as the analysis reports it. */
export type ZoneAllocations = Record<string, Record<string, unknown>>;

/**
 * What history remembers about a Service at one instant. Two snapshots in which every field here is
 * equal fall in the same interval; `stateHash` is how that is checked.
 */
export interface ServiceState {
  namespace: string;
  name: string;
  routing: RoutingMode;
  hintState: HintState;
  hintReason: string | null;
  zones: ZoneAllocations;
  crossZoneWithoutHints: number | null;
  crossZoneWithHints: number | null;
  stateHash: bigint;
}

export type ServiceStateFields = Omit<ServiceState, 'stateHash'>;

/** Namespaces cannot contain '/', so this names a Service unambiguously within a cluster. */
export function serviceKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** JSON with object keys sorted at every level: equal values always give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  return sorted;
}

/** First 64 bits of SHA-256 over the state fields (identity excluded), as a signed BIGINT. */
export function stateHashOf(fields: ServiceStateFields): bigint {
  const text = canonicalJson([
    fields.routing,
    fields.hintState,
    fields.hintReason,
    fields.zones,
    fields.crossZoneWithoutHints,
    fields.crossZoneWithHints,
  ]);
  return createHash('sha256').update(text).digest().readBigInt64BE(0);
}

export function withStateHash(fields: ServiceStateFields): ServiceState {
  const zones = sortKeys(fields.zones) as ZoneAllocations;
  const state = { ...fields, zones };
  return { ...state, stateHash: stateHashOf(state) };
}
