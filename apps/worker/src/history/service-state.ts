import type { IntervalState } from '@zw/db';

/** Per-zone allocation of one Service, as the analysis reports it. */
export type ZoneAllocations = Record<string, Record<string, unknown>>;

/**
 * What history remembers about a Service at one instant. Two snapshots in which every field here is
 * equal fall in the same interval; `stateHash` is how that is checked. What each field holds is said
 * where it is stored (libs/db history-writes.ts IntervalState); its fixes are null (or absent, for older
 * callers) when it has none, and its verdict and savings inputs optional so older callers and tests need
 * not state them.
 */
export interface ServiceState extends IntervalState {
  zones: ZoneAllocations;
}

export type ServiceStateFields = Omit<ServiceState, 'stateHash'>;

/** Namespaces cannot contain '/', so this names a Service unambiguously within a cluster. */
export function serviceKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** Zones by name, and each zone's numbers by field name: equal allocations always print the same. */
export function canonicalZones(zones: ZoneAllocations): ZoneAllocations {
  const sorted: ZoneAllocations = {};
  for (const zone of Object.keys(zones).sort()) {
    const fields: Record<string, unknown> = {};
    for (const field of Object.keys(zones[zone]).sort()) fields[field] = zones[zone][field];
    sorted[zone] = fields;
  }
  return sorted;
}

/**
 * The state with its 64-bit hash (as a signed BIGINT). This runs for every Service of every snapshot, so
 * it feeds a compact encoding (length-prefixed strings, numbers as their float64 bits; zones and their
 * fields in name order) straight into a hash: printing the doubles as JSON and SHA-256 over the text
 * cost more than the whole analysis of a mid-size snapshot.
 *
 * Decision: a non-cryptographic hash (two MurmurHash3 lanes with different seeds). A collision could only
 * make one change of one Service look like no change; at 2^-64 per comparison that is not a risk worth
 * 40 ms per 10,000 Services, and states come from our own analysis, not from an adversary's choosing.
 */
export function withStateHash(fields: ServiceStateFields): ServiceState {
  const hasher = new StateHasher();
  hasher.string(fields.routing);
  hasher.string(fields.hintState);
  hasher.value(fields.hintReason);
  for (const zone of Object.keys(fields.zones).sort()) {
    hasher.string(zone);
    const allocation = fields.zones[zone];
    // The fields the analysis reports, by position (hashing their names every time is most of the cost);
    // any other field by name, so a field added to the analysis still changes the hash.
    for (const field of ZONE_FIELDS) hasher.value(allocation[field]);
    for (const field of Object.keys(allocation).sort()) {
      if (ZONE_FIELDS.includes(field)) continue;
      hasher.string(field);
      hasher.value(allocation[field]);
    }
  }
  hasher.value(fields.crossZoneWithoutHints);
  hasher.value(fields.crossZoneWithHints);
  const verdict = fields.verdict;
  if (verdict) {
    hasher.string(verdict.managedBy);
    hasher.value(verdict.honoursHints ? 1 : 0);
    hasher.value(verdict.dataPathReason);
  }
  const savings = fields.savings;
  if (savings) {
    hasher.value(savings.readyEndpoints);
    hasher.value(savings.trafficAnnotation);
    hasher.value(savings.previewState);
    hasher.value(savings.previewReason);
    hasher.value(savings.previewCrossZone);
  }
  // Fixes are part of the state: the interval that holds a Service's state names its fixes.
  if (fields.fixes) hasher.string(fields.fixes.hash);
  return { ...fields, stateHash: hasher.digest() };
}

const ZONE_FIELDS = ['minimum', 'maximum', 'desired', 'allocated', 'expectedOverload'];
const NULL_TAG = 0x6e756c6c;
const NUMBER_TAG = 0x6e756d62;
const STRING_TAG = 0x73747269;
const float = new Float64Array(1);
const floatWords = new Uint32Array(float.buffer);

class StateHasher {
  private h1 = 0x9747b28c;
  private h2 = 0x2545f491;
  private words = 0;

  string(text: string): void {
    this.word(STRING_TAG);
    this.word(text.length);
    for (let i = 0; i < text.length; i += 2) this.word(text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16));
  }

  value(value: unknown): void {
    if (value === null || value === undefined) return this.word(NULL_TAG);
    if (typeof value === 'number') {
      float[0] = value + 0; // -0 and 0 print the same, so they are the same state
      this.word(NUMBER_TAG);
      this.word(floatWords[0]);
      return this.word(floatWords[1]);
    }
    this.string(typeof value === 'string' ? value : JSON.stringify(value));
  }

  digest(): bigint {
    const high = finalMix(this.h1 ^ this.words);
    const low = finalMix(this.h2 ^ this.words);
    return BigInt.asIntN(64, (BigInt(high) << 32n) | BigInt(low));
  }

  private word(k: number): void {
    this.h1 = mixWord(this.h1, k);
    this.h2 = mixWord(this.h2, k);
    this.words++;
  }
}

function mixWord(h: number, word: number): number {
  let k = Math.imul(word, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function finalMix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
