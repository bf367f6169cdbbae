/**
 * A pure model of the apiserver's ClusterIP allocator for what-if simulations (upstream
 * `pkg/registry/core/service/ipallocator`: `ipallocator.go allocateService` / `allocateNextService`,
 * `cidrallocator.go` for several ServiceCIDRs).
 *
 * The model is the current ServiceCIDR/IPAddress allocator (default since 1.33, the only one from 1.34):
 * one allocator per distinct CIDR, each with its own static/dynamic bands. Counting is bigint arithmetic
 * over the addresses Services hold; no range is enumerated.
 */
import { type Band, type ServiceIpRange, allocatorRefusal, bandOf, runSize } from './cidr-bands.js';
import { type IpAddress, type IpFamily, cidrContains, formatIp, parseIp, tryParseIp } from './ip-addresses.js';
import { type ParsedInput, parseServiceCidrInput, type ServiceCidrInput } from './service-cidrs.js';

/** Returns a value in [0, maxExclusive); injected so simulations and tests are reproducible. */
export type RandomSource = (maxExclusive: bigint) => bigint;

interface AllocatorRange {
  readonly range: ServiceIpRange;
  readonly source: string;
  readonly ready: boolean;
}

/** Allocators in the order they are tried, and every address taken (by IPAddress object), per family. */
export interface AllocationState {
  readonly allocators: readonly AllocatorRange[];
  readonly taken: Readonly<Record<IpFamily, ReadonlySet<bigint>>>;
}

export type AllocationOutcome =
  | { ok: true; ip: string; cidr: string; source: string; band: Band; state: AllocationState }
  | {
      ok: false;
      /** The detail the client sees, e.g. `failed to allocate IP 10.96.0.10: provided IP is already allocated`. */
      error: string;
      /** The allocator's own error text, e.g. `provided IP is already allocated`. */
      reason: string;
      state: AllocationState;
    };

const ERR_FULL = 'range is full';
const ERR_ALLOCATED = 'provided IP is already allocated';
const ERR_MISMATCHED_NETWORK = 'the provided network does not match the current range';

/**
 * Decision: of the two upstream texts for an address outside the usable range, this model uses
 * `provided IP <ip> is not in the valid range`, which appears to be the newer one: upstream dropped the
 * `The range of valid IPs is <cidr>` sentence so that users allowed only to create Services no longer learn
 * the Service CIDR from the error; clusters from before that change answer
 * `the provided IP (<ip>) is not in the valid range. The range of valid IPs is <cidr>`.
 */
function notInRangeText(ip: string): string {
  return `provided IP ${ip} is not in the valid range`;
}

/**
 * Allocators for the given CIDRs, with the given addresses already taken.
 * Decision: allocators are tried in input order. Upstream walks a Go map (unspecified order, no weighting by
 * size), so with several ranges of one family, or overlapping ranges, the range a real apiserver picks may differ. CIDRs the allocator refuses (IPv6 shorter than /64) get no
 * allocator; unparsable taken addresses are ignored (they cannot collide with anything).
 */
export function allocationState(cidrs: ServiceCidrInput[], takenIPs: Iterable<string>): AllocationState {
  const taken: IpAddress[] = [];
  for (const text of takenIPs) {
    const ip = tryParseIp(text);
    if (ip !== null) taken.push(ip);
  }
  return allocationStateOf(cidrs.map(parseServiceCidrInput), taken);
}

export function allocationStateOf(inputs: ParsedInput[], takenIPs: readonly IpAddress[]): AllocationState {
  const allocators = inputs
    .filter(({ range }) => allocatorRefusal(range.cidr) === null)
    .map(({ range, input }) => ({ range, source: input.source, ready: input.ready }));
  const taken: Record<IpFamily, Set<bigint>> = { IPv4: new Set(), IPv6: new Set() };
  for (const ip of takenIPs) taken[ip.family].add(ip.value);
  return { allocators, taken };
}

/**
 * A Service that leaves its ClusterIP empty: each ready allocator of the family in turn takes from its upper
 * (dynamic) band, starting at a random position and moving up with wrap-around; only when that band is full
 * does it try the lower (static) band the same way. A range with an empty upper band is full at once.
 */
export function allocateDynamic(state: AllocationState, family: IpFamily, random: RandomSource): AllocationOutcome {
  const taken = state.taken[family];
  for (const allocator of state.allocators) {
    if (allocator.range.cidr.family !== family || !allocator.ready) continue;
    const { range } = allocator;
    if (range.dynamicBand === null) continue;
    const fromUpper = scanRun(range.dynamicBand, taken, random);
    const value = fromUpper ?? (range.staticBand === null ? null : scanRun(range.staticBand, taken, random));
    if (value !== null) return succeeded(state, allocator, { family, value });
  }
  return failed(state, ERR_FULL, `failed to allocate a serviceIP: ${ERR_FULL}`);
}

/**
 * A Service that names its ClusterIP: the first ready allocator whose CIDR contains it decides; the address
 * must be usable there and not taken. Either band is accepted. Throws `CidrError` for a non-address.
 */
export function allocateStatic(state: AllocationState, ipText: string): AllocationOutcome {
  const ip = parseIp(ipText);
  const text = formatIp(ip);
  const fail = (reason: string) => failed(state, reason, `failed to allocate IP ${text}: ${reason}`);
  const allocator = state.allocators.find(({ range, ready }) => ready && cidrContains(range.cidr, ip));
  if (allocator === undefined) return fail(ERR_MISMATCHED_NETWORK);
  if (bandOf(allocator.range, ip.value) === null) return fail(notInRangeText(text));
  if (state.taken[ip.family].has(ip.value)) return fail(ERR_ALLOCATED);
  return succeeded(state, allocator, ip);
}

/** Releasing an address that is free or in no range is a silent no-op, as upstream. */
export function releaseAddress(state: AllocationState, ipText: string): AllocationState {
  const ip = parseIp(ipText);
  if (!state.taken[ip.family].has(ip.value)) return state;
  const remaining = new Set(state.taken[ip.family]);
  remaining.delete(ip.value);
  return { ...state, taken: { ...state.taken, [ip.family]: remaining } };
}

/**
 * First free address of the run, starting at a random position and wrapping around. A run already full is
 * recognised by counting, so the scan never runs longer than the taken addresses inside the run plus one.
 * Decision: the random source is asked for a start only when the run has a free address, and always for a
 * uniform position in [0, run size), also for 2^64-sized IPv6 bands (upstream draws a raw 64-bit value there
 * and falls back to the band's first address on overflow: practically the same uniform start).
 */
function scanRun(
  run: { first: bigint; last: bigint },
  taken: ReadonlySet<bigint>,
  random: RandomSource,
): bigint | null {
  const size = runSize(run);
  let takenInRun = 0n;
  for (const value of taken) if (value >= run.first && value <= run.last) takenInRun += 1n;
  if (takenInRun >= size) return null;
  let candidate = run.first + draw(random, size);
  while (taken.has(candidate)) candidate = candidate === run.last ? run.first : candidate + 1n;
  return candidate;
}

function draw(random: RandomSource, maxExclusive: bigint): bigint {
  const value = random(maxExclusive);
  if (typeof value !== 'bigint' || value < 0n || value >= maxExclusive) {
    throw new RangeError(`random source returned ${String(value)}, outside [0, ${maxExclusive})`);
  }
  return value;
}

function succeeded(state: AllocationState, allocator: AllocatorRange, ip: IpAddress): AllocationOutcome {
  const band = bandOf(allocator.range, ip.value) as Band;
  const taken = new Set(state.taken[ip.family]).add(ip.value);
  return {
    ok: true,
    ip: formatIp(ip),
    cidr: allocator.range.text,
    source: allocator.source,
    band,
    state: { ...state, taken: { ...state.taken, [ip.family]: taken } },
  };
}

function failed(state: AllocationState, reason: string, error: string): AllocationOutcome {
  return { ok: false, error, reason, state };
}
