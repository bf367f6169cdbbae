import {
  AppsV1Api,
  CoreV1Api,
  DiscoveryV1Api,
  KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  NetworkingV1Api,
} from '@kubernetes/client-node';

/**
 * The resources a snapshot is made of, each with its watch path and a paginated list call: the four the
 * analysis reads, and Pods and ReplicaSets for the workload behind each endpoint.
 */

export type ResourceName = 'nodes' | 'services' | 'endpointslices' | 'servicecidrs' | 'pods' | 'replicasets';

export interface ResourceDefinition {
  name: ResourceName;
  /** The collection path the informer watches. */
  path: string;
  /** When the cluster does not serve this resource (404), or does not let the agent read it (403), the snapshot goes without it. */
  optional: boolean;
  /** What a snapshot lacks without it (logged once when it is unavailable). */
  withoutIt?: string;
  /**
   * What the cache keeps of each object, listed or watched: for Pods and ReplicaSets, only the owner
   * fields, so the agent's memory grows by a few hundred bytes per Pod, not by whole Pod specs.
   */
  trim?: (object: KubernetesObject) => KubernetesObject;
  list(kubeConfig: KubeConfig): () => Promise<KubernetesListObject<KubernetesObject>>;
}

/**
 * A Pod or ReplicaSet reduced to its name, namespace, resourceVersion (which the informer watches from)
 * and controller owner reference: all the workload lookup reads.
 */
export function ownerFieldsOf(object: KubernetesObject): KubernetesObject {
  const metadata = object.metadata ?? {};
  const controller = (metadata.ownerReferences ?? []).find((reference) => reference.controller === true);
  const trimmed: KubernetesObject = {
    metadata: { name: metadata.name, namespace: metadata.namespace, resourceVersion: metadata.resourceVersion },
  };
  if (controller) {
    trimmed.metadata!.ownerReferences = [
      { apiVersion: controller.apiVersion, kind: controller.kind, name: controller.name, uid: '', controller: true },
    ];
  }
  return trimmed;
}

/** Items per list page: large lists are read in pages, so the API server never builds one huge response. */
export const LIST_PAGE_SIZE = 500;

interface Page {
  items: KubernetesObject[];
  metadata?: { resourceVersion?: string; _continue?: string };
}

/**
 * Reads every page of a list. The pages of one list share the first page's resourceVersion (the API
 * server serves them from one consistent snapshot), which is where the watch then starts.
 */
async function listAllPages(
  fetchPage: (pageToken: string | undefined) => Promise<Page>,
): Promise<KubernetesListObject<KubernetesObject>> {
  const items: KubernetesObject[] = [];
  let resourceVersion: string | undefined;
  let pageToken: string | undefined;
  do {
    const page = await fetchPage(pageToken);
    items.push(...page.items);
    resourceVersion ??= page.metadata?.resourceVersion;
    pageToken = page.metadata?._continue || undefined;
  } while (pageToken);
  return { items, metadata: { resourceVersion } };
}

export const RESOURCES: readonly ResourceDefinition[] = [
  {
    name: 'nodes',
    path: '/api/v1/nodes',
    optional: false,
    list: (kc) => {
      const api = kc.makeApiClient(CoreV1Api);
      return () => listAllPages((page) => api.listNode({ limit: LIST_PAGE_SIZE, _continue: page }) as Promise<Page>);
    },
  },
  {
    name: 'services',
    path: '/api/v1/services',
    optional: false,
    list: (kc) => {
      const api = kc.makeApiClient(CoreV1Api);
      return () =>
        listAllPages(
          (page) => api.listServiceForAllNamespaces({ limit: LIST_PAGE_SIZE, _continue: page }) as Promise<Page>,
        );
    },
  },
  {
    name: 'endpointslices',
    path: '/apis/discovery.k8s.io/v1/endpointslices',
    optional: false,
    list: (kc) => {
      const api = kc.makeApiClient(DiscoveryV1Api);
      return () =>
        listAllPages(
          (page) => api.listEndpointSliceForAllNamespaces({ limit: LIST_PAGE_SIZE, _continue: page }) as Promise<Page>,
        );
    },
  },
  {
    // networking.k8s.io/v1 ServiceCIDR is served from Kubernetes 1.33; older clusters answer 404.
    name: 'servicecidrs',
    path: '/apis/networking.k8s.io/v1/servicecidrs',
    optional: true,
    list: (kc) => {
      const api = kc.makeApiClient(NetworkingV1Api);
      return () =>
        listAllPages((page) => api.listServiceCIDR({ limit: LIST_PAGE_SIZE, _continue: page }) as Promise<Page>);
    },
  },
  {
    name: 'pods',
    path: '/api/v1/pods',
    optional: true,
    withoutIt: 'the workload behind each endpoint (fixes then say the owner is unknown)',
    trim: ownerFieldsOf,
    list: (kc) => {
      const api = kc.makeApiClient(CoreV1Api);
      return () =>
        listAllPages(
          (page) => api.listPodForAllNamespaces({ limit: LIST_PAGE_SIZE, _continue: page }) as Promise<Page>,
        );
    },
  },
  {
    name: 'replicasets',
    path: '/apis/apps/v1/replicasets',
    optional: true,
    withoutIt: 'the Deployment behind a ReplicaSet (fixes then say the owner is unknown)',
    trim: ownerFieldsOf,
    list: (kc) => {
      const api = kc.makeApiClient(AppsV1Api);
      return () =>
        listAllPages(
          (page) => api.listReplicaSetForAllNamespaces({ limit: LIST_PAGE_SIZE, _continue: page }) as Promise<Page>,
        );
    },
  },
];

export function loadKubeConfig(options: { kubeconfig: string | null; inCluster: boolean }): KubeConfig {
  const kc = new KubeConfig();
  if (options.kubeconfig) kc.loadFromFile(options.kubeconfig);
  else if (options.inCluster) kc.loadFromCluster();
  else kc.loadFromDefault();
  if (!kc.getCurrentCluster()) throw new Error('the kubeconfig names no current cluster');
  return kc;
}

/** The HTTP status an API or watch error carries, if any. */
export function errorStatus(error: unknown): number | null {
  const candidate = error as { code?: unknown; statusCode?: unknown } | null;
  if (typeof candidate?.code === 'number') return candidate.code;
  if (typeof candidate?.statusCode === 'number') return candidate.statusCode;
  return null;
}

export function describeError(error: unknown): string {
  const status = errorStatus(error);
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  const cause = (error as { cause?: { code?: string } } | null)?.cause?.code;
  return [
    status !== null && !message.includes(String(status)) ? `HTTP ${status}` : null,
    message,
    cause ? `(${cause})` : null,
  ]
    .filter(Boolean)
    .join(' ');
}
