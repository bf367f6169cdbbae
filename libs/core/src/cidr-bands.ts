/**
 * How kube-apiserver splits a Service IP range into a static (lower) and a dynamic (upper) band
 * (KEP-3070), under the current ServiceCIDR/IPAddress allocator: upstream
 * `pkg/registry/core/service/ipallocator/bitmap.go calculateRangeOffset` for the offset, the usable
 * range of `ipallocator.go` (IPAddress objects) and the size of k8s.io/utils `net.RangeSize`.
 *
 * Everything is counted with bigint arithmetic; no range is ever enumerated.
 */
import {
  type Cidr,
  type IpFamily,
  addressCount,
  formatCidr,
  formatCidrAsWritten,
  formatIp,
  hasHostBitsSet,
  parseCidr,
} from './ip-addresses.js';

export type Band = 'static' | 'dynamic';

/** An inclusive run of addresses, as integers. */
export interface AddressRun {
  readonly first: bigint;
  readonly last: bigint;
}

/** A Service IP range with its bands, as integers: the model the allocator and the analysis share. */
export interface ServiceIpRange {
  readonly cidr: Cidr;
  /** Canonical `network/prefix`. */
  readonly text: string;
  /** All addresses of the CIDR, network and broadcast included: the input of the band formula. */
  readonly cidrSize: bigint;
  readonly bandOffset: number;
  /** Addresses the IPAddress allocator may hand out: the static band plus the dynamic band. */
  readonly usable: bigint;
  readonly staticBand: AddressRun | null;
  readonly dynamicBand: AddressRun | null;
  /** Why the allocator would not allocate from this range at all; null when it would. */
  readonly refusal: string | null;
}

/** One band in the `zonewise cidr` JSON contract. */
export interface AddressBand {
  first: string;
  last: string;
}

/** The `zonewise cidr` JSON contract. */
export interface CidrDescription {
  cidr: string;
  family: IpFamily;
  /** Usable addresses: a number up to 2^53-1, else a decimal string. */
  size: number | string;
  bandOffset: number;
  staticBand: AddressBand | null;
  dynamicBand: AddressBand | null;
  allocatable?: false;
  reason?: string;
}

/** A description plus the human messages the CLI prints on stderr (never part of the JSON). */
export interface DescribedCidr {
  description: CidrDescription;
  warnings: string[];
}

const MIN_BAND_OFFSET = 16n;
const MAX_BAND_OFFSET = 256n;
const BAND_SPLIT_DIVISOR = 16n;
const SHORTEST_IPV6_PREFIX = 64;

/** Parses CIDR text and describes its bands; host bits set is a warning, not an error. */
export function describeCidr(text: string): DescribedCidr {
  const cidr = parseCidr(text);
  const range = serviceIpRange(cidr);
  const warnings = hasHostBitsSet(cidr) ? [`${formatCidrAsWritten(cidr)} has host bits set; using ${range.text}`] : [];
  return { description: describeServiceIpRange(range), warnings };
}

export function describeServiceIpRange(range: ServiceIpRange): CidrDescription {
  const description: CidrDescription = {
    cidr: range.text,
    family: range.cidr.family,
    size: jsonCount(range.usable),
    bandOffset: range.bandOffset,
    staticBand: formatRun(range.cidr.family, range.staticBand),
    dynamicBand: formatRun(range.cidr.family, range.dynamicBand),
  };
  if (range.refusal !== null) {
    description.allocatable = false;
    description.reason = range.refusal;
  }
  return description;
}

export function serviceIpRange(cidr: Cidr): ServiceIpRange {
  const cidrSize = addressCount(cidr);
  const bandOffset = bandOffsetFor(cidrSize);
  const usable = usableCount(cidr);
  const offset = BigInt(bandOffset);
  const staticBand = offset > 0n ? { first: cidr.network + 1n, last: cidr.network + offset } : null;
  const dynamicBand = usable > offset ? { first: cidr.network + offset + 1n, last: cidr.network + usable } : null;
  const text = formatCidr(cidr);
  return { cidr, text, cidrSize, bandOffset, usable, staticBand, dynamicBand, refusal: refusalOf(cidr, text, usable) };
}

/**
 * Size of the lower band: none up to 16 addresses, else cidrSize/16 clamped to [16, 256]. Computed from the
 * full CIDR size, not the usable count. (Upstream caps cidrSize at 2^63-1 first; that cannot change the result.)
 */
export function bandOffsetFor(cidrSize: bigint): number {
  if (cidrSize <= 16n) return 0;
  const offset = cidrSize / BAND_SPLIT_DIVISOR;
  if (offset < MIN_BAND_OFFSET) return Number(MIN_BAND_OFFSET);
  if (offset > MAX_BAND_OFFSET) return Number(MAX_BAND_OFFSET);
  return Number(offset);
}

/**
 * First usable address is network + 1. IPv4 loses the broadcast address too; IPv6 keeps its all-ones address.
 * Decision: for IPv6 prefixes shorter than /64 (which the allocator refuses) the count is 2^h - 1 like any other
 * IPv6 prefix, not upstream's 2^64 - 1 cap: that cap only exists in code the refusal never reaches, and using
 * the plain count keeps `size = static band + dynamic band` true for every prefix, so the reported bands and
 * size describe the same addresses.
 */
function usableCount(cidr: Cidr): bigint {
  const all = addressCount(cidr);
  const unusable = cidr.family === 'IPv4' ? 2n : 1n;
  return all > unusable ? all - unusable : 0n;
}

/**
 * Decision: a range with no usable address at all (IPv4 /31 and /32, IPv6 /128) is reported as
 * `allocatable: false` with a reason, both bands null and size 0. The allocator itself is built for
 * it, but every allocation from it fails with "range is full", so "allocatable" would mislead.
 */
function refusalOf(cidr: Cidr, text: string, usable: bigint): string | null {
  const refusal = allocatorRefusal(cidr);
  if (refusal !== null) return refusal;
  if (usable === 0n) {
    const never = cidr.family === 'IPv4' ? 'the network and broadcast addresses' : 'the network address';
    return `${text} has no usable addresses: the allocator never hands out ${never}, so every allocation fails with "range is full"`;
  }
  return null;
}

/** The error upstream gives when it will not even build an allocator for the CIDR (upstream text). */
export function allocatorRefusal(cidr: Cidr): string | null {
  if (cidr.family === 'IPv6' && cidr.prefixLength < SHORTEST_IPV6_PREFIX) {
    return `shortest allowed prefix length for service CIDR is ${SHORTEST_IPV6_PREFIX}, got ${cidr.prefixLength}`;
  }
  return null;
}

/** Which band of the range an address falls in; null when it is not a usable address of the range. */
export function bandOf(range: ServiceIpRange, value: bigint): Band | null {
  if (inRun(range.staticBand, value)) return 'static';
  if (inRun(range.dynamicBand, value)) return 'dynamic';
  return null;
}

export function inRun(run: AddressRun | null, value: bigint): boolean {
  return run !== null && value >= run.first && value <= run.last;
}

export function runSize(run: AddressRun | null): bigint {
  return run === null ? 0n : run.last - run.first + 1n;
}

/** Why an address inside the CIDR is not usable: it is the network or the IPv4 broadcast address. */
export function unusableRole(range: ServiceIpRange, value: bigint): 'network address' | 'broadcast address' | null {
  if (value === range.cidr.network) return 'network address';
  const broadcast = range.cidr.network + range.cidrSize - 1n;
  if (range.cidr.family === 'IPv4' && value === broadcast) return 'broadcast address';
  return null;
}

/** A count in JSON: a number while it is exact (at most 2^53-1), else a decimal string. */
export function jsonCount(count: bigint): number | string {
  return count <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(count) : count.toString();
}

export function formatRun(family: IpFamily, run: AddressRun | null): AddressBand | null {
  if (run === null) return null;
  return { first: formatIp({ family, value: run.first }), last: formatIp({ family, value: run.last }) };
}

/** `first–last` text of a run, for messages. */
export function runText(family: IpFamily, run: AddressRun | null): string {
  const band = formatRun(family, run);
  return band === null ? 'none' : `${band.first}–${band.last}`;
}
