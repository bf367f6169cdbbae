/**
 * The snapshot a what-if changes, copied on write: lists are copied once, a slice only when a what-if
 * changes it, and everything else is shared with the input snapshot, read-only. New endpoints get
 * addresses no slice of the snapshot uses.
 */
import { isControllerManaged, serviceKey } from './analyze.js';
import { type AddressType, type EndpointSlice, type Node, SERVICE_NAME_LABEL, type Service } from './k8s-objects.js';
import { canonicalAddress } from './proxy-addresses.js';
import { snapshotRecordsManagedBy } from './slice-management.js';
import type { Snapshot } from './snapshot-model.js';

export class WorkingSnapshot {
  nodes: Node[];
  readonly slices: EndpointSlice[];
  /** Zones whose nodes a what-if removed. */
  readonly removedZones = new Set<string>();
  private readonly services: Service[];
  private readonly serviceIndex: Map<string, number>;
  /** Slices already copied by this what-if, which may be changed in place. */
  private readonly ownSlices = new Set<EndpointSlice>();
  private readonly addresses: AddressPool;
  /** `namespace/name` of every slice, so new slice names never collide. */
  private readonly sliceNames: Set<string>;
  /** Whether the snapshot labels its slices' managers (see slice-management.ts), so new slices follow suit. */
  readonly recordsManagedBy: boolean;

  constructor(private readonly snapshot: Snapshot) {
    this.nodes = [...snapshot.nodes];
    this.slices = [...snapshot.endpointSlices];
    this.services = [...snapshot.services];
    this.serviceIndex = new Map(this.services.map((service, index) => [serviceKey(service), index]));
    this.addresses = new AddressPool(snapshot.endpointSlices);
    this.sliceNames = new Set(this.slices.map(sliceName));
    this.recordsManagedBy = snapshotRecordsManagedBy(snapshot.endpointSlices);
  }

  service(ref: { namespace: string; name: string }): Service {
    return this.services[this.serviceIndex.get(`${ref.namespace}/${ref.name}`) ?? -1];
  }

  replaceService(ref: { namespace: string; name: string }, service: Service): void {
    const index = this.serviceIndex.get(`${ref.namespace}/${ref.name}`);
    if (index !== undefined) this.services[index] = service;
  }

  /** Indexes (into {@link slices}) of the Service's controller-managed IP slices, in snapshot order. */
  managedSliceIndexes(namespace: string, name: string, addressType: AddressType): number[] {
    const indexes: number[] = [];
    this.slices.forEach((slice, index) => {
      if (slice.addressType !== addressType || !isControllerManaged(slice, this.recordsManagedBy)) return;
      if ((slice.metadata.namespace ?? 'default') !== namespace) return;
      if (slice.metadata.labels?.[SERVICE_NAME_LABEL] === name) indexes.push(index);
    });
    return indexes;
  }

  /** The slice at `index`, copied once (with its own endpoint list) so it may be changed. */
  writableSlice(index: number): EndpointSlice {
    const current = this.slices[index];
    if (this.ownSlices.has(current)) return current;
    const copy: EndpointSlice = { ...current, endpoints: [...(current.endpoints ?? [])] };
    this.slices[index] = copy;
    this.ownSlices.add(copy);
    return copy;
  }

  addSlice(slice: EndpointSlice): number {
    this.ownSlices.add(slice);
    this.sliceNames.add(sliceName(slice));
    return this.slices.push(slice) - 1;
  }

  sliceNameTaken(namespace: string, name: string): boolean {
    return this.sliceNames.has(`${namespace}/${name}`);
  }

  nextAddress(addressType: AddressType): string {
    return this.addresses.next(addressType);
  }

  result(): Snapshot {
    return {
      ...this.snapshot,
      nodes: this.nodes,
      services: this.services,
      endpointSlices: this.slices,
      serviceCIDRs: [...this.snapshot.serviceCIDRs],
      annotatedServiceCIDRs: [...this.snapshot.annotatedServiceCIDRs],
      zoneTrafficWeights: this.remainingZoneWeights(),
    };
  }

  /**
   * Decision: a zone without nodes has no clients, so it leaves the snapshot's zone traffic weights too;
   * when no weighted zone is left, the analysis falls back to allocatable CPU.
   */
  private remainingZoneWeights(): Record<string, number> | null {
    const weights = this.snapshot.zoneTrafficWeights;
    if (weights === null) return null;
    const kept = Object.entries(weights).filter(([zone]) => !this.removedZones.has(zone));
    return kept.length === 0 ? null : Object.fromEntries(kept);
  }
}

function sliceName(slice: EndpointSlice): string {
  return `${slice.metadata.namespace ?? 'default'}/${slice.metadata.name}`;
}

/**
 * Decision: synthesized endpoint addresses are taken in order from 100.64.0.1 (IPv4, the shared address
 * space) and fd00:7a77::1 (IPv6), skipping every address any slice of the snapshot already uses, so
 * they are deterministic and never collide with a real endpoint or with each other.
 */
class AddressPool {
  private readonly used = new Set<string>();
  private readonly counters: Record<AddressType, number> = { IPv4: 0, IPv6: 0 };

  constructor(slices: readonly EndpointSlice[]) {
    for (const slice of slices) {
      if (slice.addressType === 'FQDN') continue;
      for (const endpoint of slice.endpoints ?? []) {
        for (const address of endpoint.addresses ?? []) this.used.add(canonicalAddress(address));
      }
    }
  }

  next(addressType: AddressType): string {
    for (;;) {
      const n = ++this.counters[addressType];
      const address = addressType === 'IPv4' ? ipv4Address(n) : canonicalAddress(ipv6Address(n));
      if (this.used.has(address)) continue;
      this.used.add(address);
      return address;
    }
  }
}

/** The n-th address of 100.64.0.0/10 (n < 2^22). */
function ipv4Address(n: number): string {
  return `100.${64 + (n >>> 16)}.${(n >>> 8) & 255}.${n & 255}`;
}

function ipv6Address(n: number): string {
  return `fd00:7a77::${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
}
