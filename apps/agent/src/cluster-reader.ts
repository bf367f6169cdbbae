import {
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type V1Namespace,
  type V1NamespaceList,
  VersionApi,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { describeError, errorStatus, LIST_PAGE_SIZE } from './kubernetes.js';

/**
 * Reads, at each snapshot, what says which Kubernetes version and which data plane the cluster runs:
 * `/version`, the kube-system ConfigMaps of kube-proxy, Cilium and Antrea, Calico's FelixConfiguration
 * and ClusterInformation `default`, and the namespaces' mesh injection labels. Nothing here is needed
 * for a snapshot: a read that is refused (401/403), missing (404), slow or failing gives an unknown,
 * logged once per source and outcome, and the snapshot goes on without it.
 *
 * Decision: a read that fails (5xx, no answer in time) after the source has answered keeps that last
 * answer: a passing API server hiccup must not flip the cluster's data plane, and with it every
 * Service's verdict, for one snapshot. Refusals and absences are answers, and replace it.
 */

/** The outcome of one read. */
export type Read<T> =
  { status: 'found'; value: T } | { status: 'missing' } | { status: 'denied' } | { status: 'failed'; error: string };

export interface ServerVersion {
  major: string;
  minor: string;
  gitVersion: string | null;
}

export interface NamespaceMarks {
  name: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** Everything read from the cluster besides the watched objects. */
export interface ClusterReadings {
  version: Read<ServerVersion>;
  /** ConfigMap kube-system/kube-proxy (kubeadm's): `data`. */
  kubeProxy: Read<Record<string, string>>;
  /** ConfigMap kube-system/cilium-config: `data`. */
  cilium: Read<Record<string, string>>;
  /** ConfigMap kube-system/antrea-config: `data`. */
  antrea: Read<Record<string, string>>;
  /** crd.projectcalico.org/v1 FelixConfiguration `default`: `spec`. */
  felix: Read<Record<string, unknown>>;
  /** crd.projectcalico.org/v1 ClusterInformation `default`: `spec` (its `calicoVersion`). */
  calicoInfo: Read<Record<string, unknown>>;
  namespaces: Read<NamespaceMarks[]>;
}

/** The objects read, by the names the Helm chart's RBAC grants `get` on. */
export const READ_CONFIG_MAPS = { kubeProxy: 'kube-proxy', cilium: 'cilium-config', antrea: 'antrea-config' } as const;
export const CONFIG_MAP_NAMESPACE = 'kube-system';
export const FELIX_CONFIGURATION = {
  group: 'crd.projectcalico.org',
  version: 'v1',
  plural: 'felixconfigurations',
  name: 'default',
} as const;
export const CALICO_CLUSTER_INFORMATION = {
  group: 'crd.projectcalico.org',
  version: 'v1',
  plural: 'clusterinformations',
  name: 'default',
} as const;

/** A read that takes longer than this counts as failed (the snapshot does not wait for it). */
const READ_TIMEOUT_MS = 10_000;

export class ClusterReader {
  private readonly core: CoreV1Api;
  private readonly custom: CustomObjectsApi;
  private readonly versions: VersionApi;
  /** `source outcome` pairs already logged: each is logged once in the agent's life. */
  private readonly logged = new Set<string>();
  /** Per source, its last answer (anything but a failure). */
  private readonly lastAnswers = new Map<string, Read<unknown>>();

  constructor(
    kubeConfig: KubeConfig,
    private readonly logger: Logger,
    private readonly timeoutMs = READ_TIMEOUT_MS,
  ) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
    this.versions = kubeConfig.makeApiClient(VersionApi);
  }

  async read(): Promise<ClusterReadings> {
    const configMap = (name: string) => async () =>
      (await this.core.readNamespacedConfigMap({ name, namespace: CONFIG_MAP_NAMESPACE })).data ?? {};
    const calicoSpec = (object: typeof FELIX_CONFIGURATION | typeof CALICO_CLUSTER_INFORMATION) => async () => {
      const found = (await this.custom.getClusterCustomObject({ ...object })) as { spec?: Record<string, unknown> };
      return found.spec ?? {};
    };
    const [version, kubeProxy, cilium, antrea, felix, calicoInfo, namespaces] = await Promise.all([
      this.attempt('/version', async () => {
        const info = await this.versions.getCode();
        return { major: info.major, minor: info.minor, gitVersion: info.gitVersion || null };
      }),
      this.attempt(
        `ConfigMap ${CONFIG_MAP_NAMESPACE}/${READ_CONFIG_MAPS.kubeProxy}`,
        configMap(READ_CONFIG_MAPS.kubeProxy),
      ),
      this.attempt(`ConfigMap ${CONFIG_MAP_NAMESPACE}/${READ_CONFIG_MAPS.cilium}`, configMap(READ_CONFIG_MAPS.cilium)),
      this.attempt(`ConfigMap ${CONFIG_MAP_NAMESPACE}/${READ_CONFIG_MAPS.antrea}`, configMap(READ_CONFIG_MAPS.antrea)),
      this.attempt(`FelixConfiguration ${FELIX_CONFIGURATION.name}`, calicoSpec(FELIX_CONFIGURATION)),
      this.attempt(`ClusterInformation ${CALICO_CLUSTER_INFORMATION.name}`, calicoSpec(CALICO_CLUSTER_INFORMATION)),
      this.attempt('namespaces', () => this.listNamespaces()),
    ]);
    return { version, kubeProxy, cilium, antrea, felix, calicoInfo, namespaces };
  }

  private async listNamespaces(): Promise<NamespaceMarks[]> {
    const marks: NamespaceMarks[] = [];
    let pageToken: string | undefined;
    do {
      const page: V1NamespaceList = await this.core.listNamespace({ limit: LIST_PAGE_SIZE, _continue: pageToken });
      marks.push(...page.items.map(namespaceMarks));
      pageToken = page.metadata?._continue || undefined;
    } while (pageToken);
    return marks;
  }

  private async attempt<T>(source: string, read: () => Promise<T>): Promise<Read<T>> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    try {
      const found: Read<T> = { status: 'found', value: await Promise.race([read(), timeout]) };
      this.lastAnswers.set(source, found);
      return found;
    } catch (error) {
      const outcome = outcomeOf(error);
      this.logOnce(source, outcome);
      if (outcome.status !== 'failed') this.lastAnswers.set(source, outcome);
      return outcome.status === 'failed' ? ((this.lastAnswers.get(source) as Read<T> | undefined) ?? outcome) : outcome;
    } finally {
      clearTimeout(timer);
    }
  }

  private logOnce(source: string, outcome: Exclude<Read<unknown>, { status: 'found' }>): void {
    const key = `${source} ${outcome.status}`;
    if (this.logged.has(key)) return;
    this.logged.add(key);
    if (outcome.status === 'missing') {
      this.logger.info({ source }, 'not found in the cluster; it does not count towards the data plane');
    } else if (outcome.status === 'denied') {
      this.logger.warn(
        { source },
        'reading it is not allowed (RBAC): what it would tell is reported as unknown (logged once)',
      );
    } else {
      this.logger.warn(
        { source, error: outcome.error },
        'cannot read it: what it would tell is reported as unknown (logged once)',
      );
    }
  }
}

function outcomeOf(error: unknown): Exclude<Read<unknown>, { status: 'found' }> {
  const status = errorStatus(error);
  if (status === 404) return { status: 'missing' };
  if (status === 401 || status === 403) return { status: 'denied' };
  return { status: 'failed', error: describeError(error) };
}

function namespaceMarks(namespace: V1Namespace): NamespaceMarks {
  return {
    name: namespace.metadata?.name ?? '',
    labels: { ...(namespace.metadata?.labels ?? {}) },
    annotations: { ...(namespace.metadata?.annotations ?? {}) },
  };
}
