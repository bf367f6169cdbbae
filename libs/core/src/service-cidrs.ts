/**
 * The Service CIDRs a snapshot declares (ServiceCIDR objects, else the `zonewise.io/service-cidr` List
 * annotation), each parsed into the range the apiserver allocates from.
 */
import { type ServiceIpRange, serviceIpRange } from './cidr-bands.js';
import { CidrError, formatCidrAsWritten, hasHostBitsSet, parseCidr } from './ip-addresses.js';
import type { Condition, ServiceCIDR } from './k8s-objects.js';

const ANNOTATION_SOURCE = 'annotation';

export interface ServiceCidrInput {
  cidr: string;
  /** ServiceCIDR object name(s), or 'annotation' for the snapshot's `zonewise.io/service-cidr` List annotation. */
  source: string;
  ready: boolean;
}

export interface ParsedInput {
  input: ServiceCidrInput;
  range: ServiceIpRange;
  hostBitsNote: string | null;
}

/**
 * The Service CIDRs a snapshot declares, one entry per distinct CIDR string (as upstream keeps one allocator
 * per CIDR string), ready when any ServiceCIDR using it is ready.
 *
 * Decision: several ServiceCIDR objects sharing one CIDR become one entry whose `source` lists their names,
 * comma-separated, so the same range is not reported twice.
 * Decision: the List annotation is used only when the snapshot has no ServiceCIDR objects, as the CLI
 * contract describes it ("when the cluster has no ServiceCIDR objects"); the objects are the truth otherwise.
 */
export function serviceCidrsOf(serviceCIDRs: ServiceCIDR[], annotated: string[]): ServiceCidrInput[] {
  if (serviceCIDRs.length === 0) return annotatedCidrs(annotated);
  const byCidr = new Map<string, { sources: string[]; ready: boolean }>();
  for (const serviceCIDR of serviceCIDRs) {
    for (const cidr of serviceCIDR.spec?.cidrs ?? []) {
      const entry = byCidr.get(cidr) ?? { sources: [], ready: false };
      entry.sources.push(serviceCIDR.metadata.name);
      entry.ready ||= isServiceCidrReady(serviceCIDR);
      byCidr.set(cidr, entry);
    }
  }
  return [...byCidr].map(([cidr, { sources, ready }]) => ({ cidr, source: sources.join(', '), ready }));
}

function annotatedCidrs(annotated: string[]): ServiceCidrInput[] {
  const cidrs = annotated.map((cidr) => cidr.trim()).filter((cidr) => cidr !== '');
  return [...new Set(cidrs)].map((cidr) => ({ cidr, source: ANNOTATION_SOURCE, ready: true }));
}

/** Ready condition True, or no Ready condition at all (upstream assumes ready), and not being deleted. */
export function isServiceCidrReady(serviceCIDR: ServiceCIDR): boolean {
  if (serviceCIDR.metadata.deletionTimestamp) return false;
  const ready = (serviceCIDR.status?.conditions ?? []).find((condition: Condition) => condition.type === 'Ready');
  return ready === undefined || ready.status === 'True';
}

export function parseServiceCidrInput(input: ServiceCidrInput): ParsedInput {
  let cidr;
  try {
    cidr = parseCidr(input.cidr);
  } catch (error) {
    const origin =
      input.source === ANNOTATION_SOURCE ? 'the zonewise.io/service-cidr annotation' : `ServiceCIDR ${input.source}`;
    throw new CidrError(`${origin}: ${(error as Error).message}`);
  }
  const range = serviceIpRange(cidr);
  const hostBitsNote = hasHostBitsSet(cidr)
    ? `${formatCidrAsWritten(cidr)} has host bits set; using ${range.text}`
    : null;
  return { input, range, hostBitsNote };
}
