/**
 * Who writes a Service's EndpointSlices. The EndpointSlice controller skips ExternalName Services and
 * Services without a selector, and only lists slices labelled as its own
 * (`endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io`); everything else is
 * written by someone else: the EndpointSliceMirroring controller, the API server (for
 * `default/kubernetes`), another controller, or a person.
 */
import type { EndpointSlice, Service } from './k8s-objects.js';

export const CONTROLLER_MANAGED_BY = 'endpointslice-controller.k8s.io';
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
/** `managedBy` of a Service whose slices the EndpointSlice controller writes. */
export const ENDPOINTSLICE_CONTROLLER = 'endpointslice-controller';
/** `managedBy` of `default/kubernetes`, whose slice kube-apiserver writes (without a managed-by label). */
export const KUBE_APISERVER = 'kube-apiserver';
/** `managedBy` of a Service whose slices carry no other manager's label (written by hand or by a tool). */
export const NO_MANAGER = 'none';

export interface SliceManagement {
  /** `endpointslice-controller`, `kube-apiserver`, `none`, or another slice's managed-by label value. */
  managedBy: string;
  /** Why the EndpointSlice controller leaves the Service alone; null when it manages it. */
  reason: string | null;
}

const MANAGED: SliceManagement = { managedBy: ENDPOINTSLICE_CONTROLLER, reason: null };

/**
 * Decision: a snapshot stripped of Service selectors (hand-written, or from a tool that drops them) cannot
 * say which Services lack one, so `recordsSelectors` (some Service of the snapshot has a selector) tells
 * whether a missing selector means "no selector". Without it, only the slices' managed-by labels, the
 * Service type and `default/kubernetes` decide. A slice without the label (hand-written input) counts as
 * the controller's, as elsewhere in the analysis.
 *
 * Decision: the fallback stays although the agent now keeps selectors. Agent snapshots stored before it
 * did carry none, and they are read again (what-ifs and the kube-proxy view work on the newest stored
 * payload; a cluster whose agent is not upgraded keeps sending them); reading every Service of such a
 * snapshot as selector-less would call every one unmanaged, a far larger error than the one the fallback
 * makes (hand-written, unlabelled slices of a selector-less Service counted as the controller's). A
 * cluster in which no Service at all has a selector is the one case it misreads with current snapshots.
 */
export function sliceManagementOf(
  service: Service,
  slices: readonly EndpointSlice[],
  recordsSelectors: boolean,
): SliceManagement {
  if (service.metadata.name === 'kubernetes' && (service.metadata.namespace ?? 'default') === 'default') {
    return {
      managedBy: KUBE_APISERVER,
      reason:
        'kube-apiserver writes the slices of default/kubernetes (its own endpoints); the EndpointSlice controller does not manage this Service',
    };
  }
  const otherManager = otherManagerOf(slices);
  if (service.spec?.type === 'ExternalName') {
    return {
      managedBy: otherManager ?? NO_MANAGER,
      reason: 'ExternalName Service: the EndpointSlice controller writes no slices for it',
    };
  }
  if (hasSelector(service)) return otherManager !== null && !slices.some(isControllerLabelled) ? unmanaged() : MANAGED;
  if (recordsSelectors) {
    return {
      managedBy: otherManager ?? NO_MANAGER,
      reason: `the Service has no selector, so the EndpointSlice controller does not manage its slices (${writerOf(otherManager)})`,
    };
  }
  return otherManager !== null && !slices.some(isControllerLabelled) ? unmanaged() : MANAGED;

  function unmanaged(): SliceManagement {
    return {
      managedBy: otherManager as string,
      reason: `its slices are managed by ${otherManager}, not by the EndpointSlice controller`,
    };
  }
}

/** Decision: an empty selector map is no selector, as the API server stores it (protobuf drops empty maps). */
export function hasSelector(service: Service): boolean {
  const selector = service.spec?.selector;
  return typeof selector === 'object' && selector !== null && Object.keys(selector).length > 0;
}

export function snapshotRecordsSelectors(services: readonly Service[]): boolean {
  for (const service of services) if (hasSelector(service)) return true;
  return false;
}

/** The first managed-by label value on the slices that is not the controller's; null when none. */
function otherManagerOf(slices: readonly EndpointSlice[]): string | null {
  for (const slice of slices) {
    const managedBy = slice.metadata.labels?.[MANAGED_BY_LABEL];
    if (managedBy !== undefined && managedBy !== CONTROLLER_MANAGED_BY) return managedBy;
  }
  return null;
}

/** The slice is labelled as the controller's, or carries no managed-by label. */
function isControllerLabelled(slice: EndpointSlice): boolean {
  const managedBy = slice.metadata.labels?.[MANAGED_BY_LABEL];
  return managedBy === undefined || managedBy === CONTROLLER_MANAGED_BY;
}

function writerOf(otherManager: string | null): string {
  if (otherManager === 'endpointslicemirroring-controller.k8s.io')
    return 'they are mirrored from its Endpoints by the EndpointSliceMirroring controller';
  if (otherManager !== null) return `they are managed by ${otherManager}`;
  return 'they are written by hand or by another tool';
}
