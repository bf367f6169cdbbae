/**
 * Who writes a Service's EndpointSlices. The EndpointSlice controller skips ExternalName Services and
 * Services without a selector, and only lists slices labelled as its own
 * (`endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io`: upstream
 * `pkg/controller/endpointslice/endpointslice_controller.go syncService` lists by the service-name and
 * managed-by labels together); everything else is written by someone else: the EndpointSliceMirroring
 * controller, the API server (for `default/kubernetes`), another controller, or a person. Slices it does
 * not list keep the hints written in them, and kube-proxy reads those.
 */
import { type EndpointSlice, SERVICE_NAME_LABEL, type Service } from './k8s-objects.js';

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
 * Service type and `default/kubernetes` decide. Likewise `recordsManagedBy` (see {@link isControllerSlice})
 * tells whether a slice without the managed-by label is someone else's.
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
  recordsManagedBy = false,
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
  const ownsNone = !slices.some((slice) => isControllerSlice(slice, recordsManagedBy));
  const someoneElses = ownsNone && (otherManager !== null || (recordsManagedBy && slices.length > 0));
  if (hasSelector(service)) return someoneElses ? unmanaged() : MANAGED;
  if (recordsSelectors) {
    return {
      managedBy: otherManager ?? NO_MANAGER,
      reason: `the Service has no selector, so the EndpointSlice controller does not manage its slices (${writerOf(otherManager)})`,
    };
  }
  return someoneElses ? unmanaged() : MANAGED;

  function unmanaged(): SliceManagement {
    if (otherManager === null) {
      return {
        managedBy: NO_MANAGER,
        reason: `its slices carry no ${MANAGED_BY_LABEL} label, so the EndpointSlice controller never lists them (it lists only slices labelled ${CONTROLLER_MANAGED_BY}); their hints stay as written`,
      };
    }
    return {
      managedBy: otherManager,
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

/**
 * Whether the EndpointSlice controller lists the slice: it carries the controller's managed-by label
 * (`endpointslice_controller.go syncService`). Decision: a snapshot in which no slice carries a
 * managed-by label at all (`recordsManagedBy` false: hand-written, or from a tool that drops labels)
 * cannot say whose its slices are, so there an unlabelled slice counts as the controller's. Real clusters
 * label every slice the controller writes, so in their snapshots an unlabelled slice is someone else's.
 */
export function isControllerSlice(slice: EndpointSlice, recordsManagedBy: boolean): boolean {
  const managedBy = slice.metadata.labels?.[MANAGED_BY_LABEL];
  return managedBy === CONTROLLER_MANAGED_BY || (managedBy === undefined && !recordsManagedBy);
}

/** Some slice of the snapshot carries a managed-by label (any value), as every slice a controller writes does. */
export function snapshotRecordsManagedBy(slices: readonly EndpointSlice[]): boolean {
  for (const slice of slices) if (slice.metadata.labels?.[MANAGED_BY_LABEL] !== undefined) return true;
  return false;
}

/** The labels of a slice the EndpointSlice controller would write, as the snapshot labels its slices. */
export function controllerSliceLabels(serviceName: string, recordsManagedBy: boolean): Record<string, string> {
  return recordsManagedBy
    ? { [SERVICE_NAME_LABEL]: serviceName, [MANAGED_BY_LABEL]: CONTROLLER_MANAGED_BY }
    : { [SERVICE_NAME_LABEL]: serviceName };
}

function writerOf(otherManager: string | null): string {
  if (otherManager === 'endpointslicemirroring-controller.k8s.io')
    return 'they are mirrored from its Endpoints by the EndpointSliceMirroring controller';
  if (otherManager !== null) return `they are managed by ${otherManager}`;
  return 'they are written by hand or by another tool';
}
