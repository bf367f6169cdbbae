/**
 * ClusterIP analysis of a snapshot against its Service CIDRs: per range, the static and dynamic bands'
 * use, the addresses held twice or outside every range, the risks of each static claim and the well-known
 * addresses (DNS, the API server) still free. The allocator it models is in `cluster-ip-allocator`.
 */
import {
  type Band,
  type CidrDescription,
  type ServiceIpRange,
  bandOf,
  describeServiceIpRange,
  jsonCount,
  runSize,
  runText,
  unusableRole,
} from './cidr-bands.js';
import {
  type IpAddress,
  type IpFamily,
  cidrContains,
  formatIp,
  lastAddressOf,
  parseIp,
  tryParseIp,
} from './ip-addresses.js';
import type { Service } from './k8s-objects.js';
import { allocateStatic, type AllocationState, allocationStateOf } from './cluster-ip-allocator.js';
import { type ParsedInput, parseServiceCidrInput, type ServiceCidrInput } from './service-cidrs.js';

export const STATIC_CLUSTER_IP_ANNOTATION = 'zonewise.io/static-cluster-ip';
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

export interface BandCounts {
  static: number;
  dynamic: number;
  total: number;
}

export interface BandFree {
  static: number | string;
  dynamic: number | string;
}

/** Why a ClusterIP counts as statically requested. */
export type StaticReason = 'last-applied' | 'annotation' | 'cluster-dns' | 'kubernetes-api' | 'requested';

export interface ClusterIpConflict {
  kind: 'duplicate-cluster-ip' | 'outside-service-cidrs' | 'invalid-cluster-ip';
  ip: string;
  /** `namespace/name` of every Service holding the address. */
  services: string[];
  message: string;
}

export interface ClusterIpRisk {
  kind: 'static-ip-in-dynamic-band';
  ip: string;
  /** `namespace/name` of the Service holding it, or null for an address from `requestedStaticIPs`. */
  service: string | null;
  staticBecause: StaticReason;
  message: string;
}

export interface WellKnownAddress {
  ip: string;
  purpose: string;
  band: Band | null;
  /** A static request for this address would succeed now. */
  free: boolean;
  heldBy: string[];
  /** The apiserver's error for a static request of this address, when it would fail. */
  error?: string;
}

export interface ServiceCidrReport extends CidrDescription {
  source: string;
  ready: boolean;
  allocated: BandCounts;
  free: BandFree;
  /** Allocated addresses / usable addresses. */
  utilization: number;
  conflicts: ClusterIpConflict[];
  risks: ClusterIpRisk[];
  wellKnown: WellKnownAddress[];
  /** Human explanations of what the numbers mean for this range. */
  notes: string[];
}

export interface ClusterIpAnalysisOptions {
  /** Addresses the user intends to request statically (for example a DNS address for a new cluster). */
  requestedStaticIPs?: string[];
}

/** One address some Service holds, with every Service holding it. */
interface Holding {
  ip: IpAddress;
  text: string;
  holders: string[];
  /** Why each holder's claim is static, when the snapshot says so; null until one is. */
  staticBecause: Map<string, StaticReason> | null;
}

interface InvalidClusterIp {
  text: string;
  service: string;
}

/** Per-range running totals while the holdings are walked. */
interface RangeTally {
  allocatedStatic: number;
  allocatedDynamic: number;
  conflicts: ClusterIpConflict[];
  risks: ClusterIpRisk[];
  unexplainedStatic: string[];
}

/**
 * One report per Service CIDR: band usage by the snapshot's ClusterIPs, conflicts, conflict risks and
 * well-known addresses.
 *
 * A snapshot does not say which ClusterIPs were requested statically. Decision: a Service's ClusterIP counts as
 * statically requested when (a) its kubectl last-applied configuration names it in `spec.clusterIP(s)`,
 * (b) the Service is annotated `zonewise.io/static-cluster-ip: "true"`, or (c) the Service is the cluster DNS
 * Service (`k8s-app: kube-dns` in kube-system) or `default/kubernetes`. Any ClusterIP in the static band
 * counts as static too, since dynamic allocation only reaches that band when the dynamic band is full; the
 * report's notes say so when the dynamic band is not full. Malformed last-applied JSON is ignored.
 *
 * Decision: each report lists the conflicts, risks and well-known addresses inside its CIDR (overlapping
 * CIDRs therefore share some); addresses inside no CIDR, and unparsable ClusterIPs, go to the first report of
 * their family (else the first report), so each is reported once.
 */
export function analyzeClusterIPs(
  cidrs: ServiceCidrInput[],
  services: Service[],
  options: ClusterIpAnalysisOptions = {},
): ServiceCidrReport[] {
  const inputs = cidrs.map(parseServiceCidrInput);
  if (inputs.length === 0) return [];
  const requested = (options.requestedStaticIPs ?? []).map(parseIp);
  const { holdings, invalid } = collectHoldings(services);
  const held = [...holdings.values()];
  const placements = inputs.map((parsed) => placementsIn(parsed.range, held));
  const refused = inputs.map((parsed) => parsed.range.refusal !== null);
  const tallies = placements.map(emptyTally);
  tallyHoldings(held, placements, refused, inputs, tallies);
  tallyInvalid(invalid, tallies[0]);
  const state = allocationStateOf(inputs, held.map(ipOf));
  for (const ip of requested) tallyRequestedRisk(ip, inputs, tallies, holdings);
  return inputs.map((parsed, index) =>
    buildReport(parsed, tallies[index], wellKnownOf(parsed, index, inputs, requested, holdings, state)),
  );
}

function ipOf(holding: Holding): IpAddress {
  return holding.ip;
}

/** The band counts of one range; the lists fill as the holdings are walked. */
function emptyTally(placements: readonly Placement[]): RangeTally {
  let allocatedStatic = 0;
  let allocatedDynamic = 0;
  for (const placement of placements) {
    if (placement === 'static') allocatedStatic++;
    else if (placement === 'dynamic') allocatedDynamic++;
  }
  return { allocatedStatic, allocatedDynamic, conflicts: [], risks: [], unexplainedStatic: [] };
}

function collectHoldings(services: Service[]): { holdings: Map<string, Holding>; invalid: InvalidClusterIp[] } {
  const holdings = new Map<string, Holding>();
  const invalid: InvalidClusterIp[] = [];
  for (const service of services) {
    const name = serviceName(service);
    const signals = staticSignalsOf(service);
    for (const raw of clusterIPsOf(service)) {
      const ip = tryParseIp(raw);
      if (ip === null) {
        invalid.push({ text: raw, service: name });
        continue;
      }
      // The strict IPv4 parser only accepts canonical dotted quads, so the text needs no formatting.
      const text = ip.family === 'IPv4' ? raw : formatIp(ip);
      let holding = holdings.get(text);
      if (holding === undefined) holdings.set(text, (holding = { ip, text, holders: [], staticBecause: null }));
      if (holding.holders.includes(name)) continue;
      holding.holders.push(name);
      const reason = signals.everyIp ?? (signals.lastApplied?.has(text) === true ? 'last-applied' : null);
      if (reason !== null) (holding.staticBecause ??= new Map()).set(name, reason);
    }
  }
  return { holdings, invalid };
}

/** All of `spec.clusterIPs` (or the single `spec.clusterIP`), minus headless `None` and empty entries. */
function clusterIPsOf(service: Service): string[] {
  const spec = service.spec ?? {};
  const ips = spec.clusterIPs ?? (spec.clusterIP === undefined ? [] : [spec.clusterIP]);
  return ips.filter((ip) => typeof ip === 'string' && ip !== '' && ip !== 'None');
}

function serviceName(service: Service): string {
  return `${service.metadata.namespace ?? 'default'}/${service.metadata.name}`;
}

function staticSignalsOf(service: Service): { everyIp: StaticReason | null; lastApplied: Set<string> | null } {
  const { namespace = 'default', name, labels = NO_ENTRIES, annotations = NO_ENTRIES } = service.metadata;
  let everyIp: StaticReason | null = null;
  if (namespace === 'default' && name === 'kubernetes') everyIp = 'kubernetes-api';
  else if (namespace === 'kube-system' && labels['k8s-app'] === 'kube-dns') everyIp = 'cluster-dns';
  else if (annotations[STATIC_CLUSTER_IP_ANNOTATION] === 'true') everyIp = 'annotation';
  return { everyIp, lastApplied: lastAppliedClusterIPs(annotations[LAST_APPLIED_ANNOTATION]) };
}

const NO_ENTRIES: Readonly<Record<string, string>> = Object.freeze({});

/** Canonical addresses named in the last-applied configuration's `spec.clusterIP(s)`; junk yields none. */
function lastAppliedClusterIPs(annotation: string | undefined): Set<string> | null {
  if (annotation === undefined) return null;
  const found = new Set<string>();
  let spec: unknown;
  try {
    spec = (JSON.parse(annotation) as { spec?: unknown } | null)?.spec;
  } catch {
    return found;
  }
  if (typeof spec !== 'object' || spec === null) return found;
  const { clusterIP, clusterIPs } = spec as { clusterIP?: unknown; clusterIPs?: unknown };
  const named = [clusterIP, ...(Array.isArray(clusterIPs) ? clusterIPs : [])];
  for (const value of named) {
    const ip = typeof value === 'string' ? tryParseIp(value) : null;
    if (ip !== null) found.add(formatIp(ip));
  }
  return found;
}

/**
 * Where an address lies in one range: its band, null inside the CIDR but on an unusable address, or
 * undefined outside the CIDR.
 */
type Placement = Band | null | undefined;

/**
 * Every address's {@link Placement} in one range, range by range rather than address by address: the CIDR
 * bounds are computed once, and the containment test compares bigints instead of shifting them
 * (`cidrContains` allocates three per call, 10,000 addresses per analysis).
 */
function placementsIn(range: ServiceIpRange, held: readonly Holding[]): Placement[] {
  const { family, network } = range.cidr;
  const last = lastAddressOf(range.cidr);
  const placements: Placement[] = [];
  for (const { ip } of held) {
    const inside = ip.family === family && ip.value >= network && ip.value <= last;
    placements.push(inside ? bandOf(range, ip.value) : undefined);
  }
  return placements;
}

/** Conflicts, risks and unexplained static addresses of each address; most addresses have none. */
function tallyHoldings(
  held: readonly Holding[],
  placements: readonly (readonly Placement[])[],
  refused: readonly boolean[],
  inputs: ParsedInput[],
  tallies: RangeTally[],
): void {
  for (let position = 0; position < held.length; position++) {
    const holding = held[position];
    let usableSomewhere = false;
    let special = holding.holders.length > 1;
    for (let index = 0; index < placements.length; index++) {
      const placement = placements[index][position];
      if (placement !== null && placement !== undefined && !refused[index]) usableSomewhere = true;
      if (placement === 'static' || (placement === 'dynamic' && holding.staticBecause !== null)) special = true;
    }
    if (!usableSomewhere || special) tallyHolding(holding, position, placements, usableSomewhere, inputs, tallies);
  }
}

function tallyHolding(
  holding: Holding,
  position: number,
  placements: readonly (readonly Placement[])[],
  usableSomewhere: boolean,
  inputs: ParsedInput[],
  tallies: RangeTally[],
): void {
  const containing = placements.flatMap((inRange, index) => (inRange[position] === undefined ? [] : [index]));
  for (const index of containing) {
    const range = inputs[index].range;
    const placement = placements[index][position];
    if (placement === 'static') {
      const unexplained = holding.holders.filter((holder) => holding.staticBecause?.has(holder) !== true);
      if (unexplained.length > 0) tallies[index].unexplainedStatic.push(`${holding.text} (${unexplained.join(', ')})`);
    }
    if (placement === 'dynamic' && range.refusal === null && holding.staticBecause !== null) {
      tallies[index].risks.push(...holderRisks(holding, range));
    }
  }
  const targets = containing.length > 0 ? containing : [fallbackIndex(holding.ip.family, inputs)];
  const conflicts = holdingConflicts(holding, containing, inputs, usableSomewhere);
  for (const index of targets) tallies[index].conflicts.push(...conflicts);
}

function containingIndexes(ip: IpAddress, inputs: ParsedInput[]): number[] {
  const indexes: number[] = [];
  for (let index = 0; index < inputs.length; index++) {
    if (cidrContains(inputs[index].range.cidr, ip)) indexes.push(index);
  }
  return indexes;
}

function fallbackIndex(family: IpFamily, inputs: ParsedInput[]): number {
  const sameFamily = inputs.findIndex((parsed) => parsed.range.cidr.family === family);
  return sameFamily >= 0 ? sameFamily : 0;
}

function holdingConflicts(
  holding: Holding,
  containing: number[],
  inputs: ParsedInput[],
  usableSomewhere: boolean,
): ClusterIpConflict[] {
  const conflicts: ClusterIpConflict[] = [];
  const services = [...holding.holders];
  if (services.length > 1) {
    conflicts.push({
      kind: 'duplicate-cluster-ip',
      ip: holding.text,
      services,
      message: `${holding.text} is held by ${services.length} Services (${services.join(', ')}); a ClusterIP must be unique in the cluster`,
    });
  }
  if (!usableSomewhere) {
    conflicts.push({
      kind: 'outside-service-cidrs',
      ip: holding.text,
      services,
      message: `${holding.text} (held by ${services.join(', ')}) ${whyUnusable(holding.ip, containing, inputs)}`,
    });
  }
  return conflicts;
}

function whyUnusable(ip: IpAddress, containing: number[], inputs: ParsedInput[]): string {
  const explanations = containing.map((index) => {
    const range = inputs[index].range;
    if (range.refusal !== null) return `lies in ${range.text}, which the allocator does not use (${range.refusal})`;
    return `is the ${unusableRole(range, ip.value) ?? 'unusable address'} of ${range.text}, which is never allocated`;
  });
  if (explanations.length > 0) return explanations.join('; it ');
  const sameFamily = inputs.filter((parsed) => parsed.range.cidr.family === ip.family).map((p) => p.range.text);
  const where = sameFamily.length > 0 ? `(${sameFamily.join(', ')})` : `of its family (${ip.family})`;
  return `is inside no Service CIDR ${where}; requesting it now fails with "the provided network does not match the current range"`;
}

function holderRisks(holding: Holding, range: ServiceIpRange): ClusterIpRisk[] {
  return [...(holding.staticBecause ?? [])].map(([service, reason]) => ({
    kind: 'static-ip-in-dynamic-band',
    ip: holding.text,
    service,
    staticBecause: reason,
    message:
      `${service} holds ${holding.text} as a static ClusterIP (${STATIC_REASON_TEXT[reason]}), but it lies in the ` +
      `dynamic band ${bandsText(range)}: whenever the Service is recreated, or its manifests are applied to a new ` +
      `cluster, dynamic allocation may give the address to another Service first. ${safeChoiceText(range)}`,
  }));
}

function tallyRequestedRisk(
  ip: IpAddress,
  inputs: ParsedInput[],
  tallies: RangeTally[],
  holdings: Map<string, Holding>,
): void {
  const text = formatIp(ip);
  const heldBy = holdings.get(text)?.holders ?? [];
  const held = heldBy.length > 0 ? ` It is already held by ${heldBy.join(', ')}.` : '';
  for (const index of containingIndexes(ip, inputs)) {
    const range = inputs[index].range;
    if (bandOf(range, ip.value) !== 'dynamic') continue;
    tallies[index].risks.push({
      kind: 'static-ip-in-dynamic-band',
      ip: text,
      service: null,
      staticBecause: 'requested',
      message:
        `${text} (a requested static IP) lies in the dynamic band ${bandsText(range)}: dynamic allocation may give ` +
        `it to another Service before it is requested.${held} ${safeChoiceText(range)}`,
    });
  }
}

const STATIC_REASON_TEXT: Record<StaticReason, string> = {
  'last-applied': 'its kubectl last-applied configuration names it',
  annotation: `it is annotated ${STATIC_CLUSTER_IP_ANNOTATION}: "true"`,
  'cluster-dns': 'it is the cluster DNS Service',
  'kubernetes-api': 'it is the kubernetes API Service',
  requested: 'it is a requested static IP',
};

function bandsText(range: ServiceIpRange): string {
  return `${runText(range.cidr.family, range.dynamicBand)} of ${range.text}`;
}

function safeChoiceText(range: ServiceIpRange): string {
  if (range.staticBand === null) {
    return `${range.text} has no static band (16 addresses or fewer), so every static address shares the dynamic pool.`;
  }
  return `Static addresses in ${runText(range.cidr.family, range.staticBand)} (the static band) avoid this.`;
}

function tallyInvalid(invalid: InvalidClusterIp[], tally: RangeTally): void {
  for (const { text, service } of invalid) {
    tally.conflicts.push({
      kind: 'invalid-cluster-ip',
      ip: text,
      services: [service],
      message: `${service} has ClusterIP ${JSON.stringify(text)}, which is not an IPv4 or IPv6 address`,
    });
  }
}

/** The first usable address (default/kubernetes), the 10th (cluster DNS convention), and requested addresses. */
function wellKnownOf(
  parsed: ParsedInput,
  index: number,
  inputs: ParsedInput[],
  requested: IpAddress[],
  holdings: Map<string, Holding>,
  state: AllocationState,
): WellKnownAddress[] {
  const { range } = parsed;
  const family = range.cidr.family;
  const candidates: { ip: IpAddress; purpose: string }[] = [];
  const conventional: [bigint, string][] = [
    [1n, 'first address: the kubernetes API Service (default/kubernetes)'],
    [10n, 'cluster DNS Service by convention (10th address of the range)'],
  ];
  for (const [offset, purpose] of conventional) {
    if (offset <= range.usable) candidates.push({ ip: { family, value: range.cidr.network + offset }, purpose });
  }
  for (const ip of requested) {
    const containing = containingIndexes(ip, inputs);
    const belongsHere = containing.length > 0 ? containing.includes(index) : fallbackIndex(ip.family, inputs) === index;
    if (belongsHere) candidates.push({ ip, purpose: 'requested static IP' });
  }
  return mergeByAddress(candidates).map(({ ip, purpose }) => wellKnownEntry(ip, purpose, range, holdings, state));
}

function mergeByAddress(candidates: { ip: IpAddress; purpose: string }[]): { ip: IpAddress; purpose: string }[] {
  const merged = new Map<string, { ip: IpAddress; purpose: string }>();
  for (const candidate of candidates) {
    const key = formatIp(candidate.ip);
    const existing = merged.get(key);
    merged.set(key, existing ? { ip: existing.ip, purpose: `${existing.purpose}; ${candidate.purpose}` } : candidate);
  }
  return [...merged.values()];
}

function wellKnownEntry(
  ip: IpAddress,
  purpose: string,
  range: ServiceIpRange,
  holdings: Map<string, Holding>,
  state: AllocationState,
): WellKnownAddress {
  const text = formatIp(ip);
  const outcome = allocateStatic(state, text);
  const entry: WellKnownAddress = {
    ip: text,
    purpose,
    band: cidrContains(range.cidr, ip) ? bandOf(range, ip.value) : null,
    free: outcome.ok,
    heldBy: [...(holdings.get(text)?.holders ?? [])],
  };
  if (!outcome.ok) entry.error = outcome.error;
  return entry;
}

function buildReport(parsed: ParsedInput, tally: RangeTally, wellKnown: WellKnownAddress[]): ServiceCidrReport {
  const { range, input } = parsed;
  const staticSize = runSize(range.staticBand);
  const dynamicSize = runSize(range.dynamicBand);
  const total = tally.allocatedStatic + tally.allocatedDynamic;
  const allocatedStatic = BigInt(tally.allocatedStatic);
  const allocatedDynamic = BigInt(tally.allocatedDynamic);
  return {
    ...describeServiceIpRange(range),
    source: input.source,
    ready: input.ready,
    allocated: { static: tally.allocatedStatic, dynamic: tally.allocatedDynamic, total },
    free: {
      static: jsonCount(staticSize - allocatedStatic),
      dynamic: jsonCount(dynamicSize - allocatedDynamic),
    },
    utilization: range.usable === 0n ? 0 : total / Number(range.usable),
    conflicts: tally.conflicts,
    risks: tally.risks,
    wellKnown,
    notes: notesOf(parsed, tally, dynamicSize),
  };
}

function notesOf(parsed: ParsedInput, tally: RangeTally, dynamicSize: bigint): string[] {
  const { range, input } = parsed;
  const notes: string[] = [];
  if (parsed.hostBitsNote !== null) notes.push(parsed.hostBitsNote);
  if (!input.ready) {
    notes.push(
      `${range.text} (${input.source}) is not ready: dynamic allocation skips it, and static requests for its ` +
        `addresses fail with "the provided network does not match the current range" unless another ready range contains them.`,
    );
  }
  const dynamicFree = dynamicSize - BigInt(tally.allocatedDynamic);
  if (tally.unexplainedStatic.length > 0 && dynamicFree > 0n) {
    const shown = tally.unexplainedStatic.slice(0, 5).join(', ');
    const more = tally.unexplainedStatic.length > 5 ? `, and ${tally.unexplainedStatic.length - 5} more` : '';
    notes.push(
      `${tally.unexplainedStatic.length} ClusterIP(s) in the static band show no sign of a static request ` +
        `(${shown}${more}); they are counted as static, because dynamic allocation only reaches the static band when ` +
        `the dynamic band is full, and the dynamic band ${runText(range.cidr.family, range.dynamicBand)} has ` +
        `${dynamicFree} free address(es) now.`,
    );
  }
  if (range.dynamicBand !== null && dynamicFree === 0n) {
    const staticFree = runSize(range.staticBand) - BigInt(tally.allocatedStatic);
    notes.push(
      `The dynamic band of ${range.text} is full: new dynamic allocations now take addresses from the static band ` +
        `(${staticFree} free), competing with static requests.`,
    );
  }
  return notes;
}
