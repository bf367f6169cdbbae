import { generateFleetSnapshot, type KubernetesList, LAST_APPLIED_ANNOTATION, ZONE_LABEL } from '@zw/core';

/**
 * Cluster objects as kube-apiserver really stores them: the generated fleet's objects plus the clutter a
 * real cluster has (managedFields, uids, timestamps, node images and addresses, endpoint targetRefs,
 * Service selectors, big last-applied annotations…), which the agent must strip without changing what
 * the analysis sees.
 */

type Json = Record<string, unknown>;

const MANAGED_FIELDS = [
  {
    manager: 'kube-controller-manager',
    operation: 'Update',
    apiVersion: 'v1',
    time: '2026-01-01T00:00:00Z',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': { 'f:ports': {} } },
  },
];

export function realisticCluster(options: { services: number; nodes?: number; seed?: number }): Json[] {
  const fleet: KubernetesList = generateFleetSnapshot({
    nodes: options.nodes ?? 9,
    zones: 3,
    services: options.services,
    endpointsPerService: 5,
    autoShare: 0.5,
    preferCloseShare: 0.3,
    zonePrefix: 'us-east-1',
    seed: options.seed ?? 7,
  });
  const items = fleet.items.map((item) => withClutter(structuredClone(item) as unknown as Json));
  items.push(...workloadsBehind(items));
  // A Service whose static ClusterIP sits in the dynamic band, known static only by its last-applied config.
  items.push(
    withClutter({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'legacy-ldap',
        namespace: 'infra',
        annotations: {
          [LAST_APPLIED_ANNOTATION]: JSON.stringify({
            apiVersion: 'v1',
            kind: 'Service',
            metadata: { name: 'legacy-ldap', namespace: 'infra', labels: { app: 'ldap' } },
            spec: { clusterIP: '10.96.200.10', ports: [{ port: 389 }], selector: { app: 'ldap' } },
          }),
        },
      },
      spec: {
        type: 'ClusterIP',
        clusterIP: '10.96.200.10',
        clusterIPs: ['10.96.200.10'],
        ipFamilies: ['IPv4'],
        ports: [{ name: 'ldap', port: 389, protocol: 'TCP' }],
      },
    }),
  );
  return items;
}

export const SERVICE_CIDR_OBJECT: Json = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'ServiceCIDR',
  metadata: { name: 'kubernetes', uid: 'x', creationTimestamp: '2026-01-01T00:00:00Z', managedFields: MANAGED_FIELDS },
  spec: { cidrs: ['10.96.0.0/16'] },
  status: {
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        lastTransitionTime: '2026-01-01T00:00:00Z',
        reason: '',
        message: 'Kubernetes Service CIDR is ready',
      },
    ],
  },
};

/**
 * Decision: every fifth Service (`svc-00005`, `svc-00010`, …) is backed by a StatefulSet of its name,
 * the others by a Deployment of its name through a ReplicaSet, as kube-controller-manager names them.
 */
export function ownerOfService(service: string): { kind: 'StatefulSet' | 'Deployment'; name: string } {
  const number = Number(/(\d+)$/.exec(service)?.[1] ?? '1');
  return { kind: number % 5 === 0 ? 'StatefulSet' : 'Deployment', name: service };
}

function podName(service: string, index: number): string {
  return ownerOfService(service).kind === 'StatefulSet' ? `${service}-${index}` : `${service}-5d4f7b9c8-x${index}`;
}

/**
 * The Pods behind every endpoint (with the clutter real Pods have: specs, statuses, labels) and the
 * ReplicaSets owning the Deployments' Pods, plus a finished Job's Pod that backs no Service.
 */
function workloadsBehind(items: Json[]): Json[] {
  const objects: Json[] = [];
  const replicaSets = new Set<string>();
  for (const item of items) {
    if (item.kind !== 'EndpointSlice') continue;
    const namespace = String((item.metadata as Json).namespace);
    const service = String(((item.metadata as Json).labels as Json)['kubernetes.io/service-name']);
    const owner = ownerOfService(service);
    for (const endpoint of item.endpoints as Json[]) {
      const name = String((endpoint.targetRef as Json).name);
      const controller =
        owner.kind === 'StatefulSet'
          ? { apiVersion: 'apps/v1', kind: 'StatefulSet', name: owner.name }
          : { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${owner.name}-5d4f7b9c8` };
      objects.push(pod(name, namespace, service, controller, endpoint.nodeName as string | undefined));
      if (owner.kind === 'Deployment' && !replicaSets.has(`${namespace}/${service}`)) {
        replicaSets.add(`${namespace}/${service}`);
        objects.push({
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: {
            name: `${owner.name}-5d4f7b9c8`,
            namespace,
            uid: `rs-${service}`,
            labels: { app: service, 'pod-template-hash': '5d4f7b9c8' },
            managedFields: MANAGED_FIELDS,
            ownerReferences: [
              { apiVersion: 'apps/v1', kind: 'Deployment', name: owner.name, uid: `d-${service}`, controller: true },
            ],
          },
          spec: { replicas: 5, selector: { matchLabels: { app: service } }, template: { spec: POD_SPEC } },
          status: { replicas: 5, readyReplicas: 5 },
        });
      }
    }
  }
  objects.push(
    pod('report-28391-abcde', 'team-01', 'report', { apiVersion: 'batch/v1', kind: 'Job', name: 'report-28391' }),
  );
  return objects;
}

const POD_SPEC = {
  containers: [
    {
      name: 'app',
      image: `registry.example.com/app@sha256:${'cd'.repeat(32)}`,
      env: [{ name: 'CONFIG', value: 'x'.repeat(512) }],
      resources: { requests: { cpu: '100m', memory: '128Mi' } },
    },
  ],
};

function pod(
  name: string,
  namespace: string,
  app: string,
  controller: { apiVersion: string; kind: string; name: string },
  nodeName?: string,
): Json {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      uid: `pod-${namespace}-${name}`,
      labels: { app },
      managedFields: MANAGED_FIELDS,
      ownerReferences: [{ ...controller, uid: `owner-${controller.name}`, controller: true, blockOwnerDeletion: true }],
    },
    spec: { ...POD_SPEC, nodeName },
    status: { phase: 'Running', podIP: '10.244.0.9', conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

function withClutter(object: Json): Json {
  const metadata = object.metadata as Json;
  metadata.uid = `uid-${String(metadata.namespace ?? '')}-${String(metadata.name)}`;
  metadata.creationTimestamp = '2026-01-01T00:00:00Z';
  metadata.generation = 3;
  metadata.managedFields = MANAGED_FIELDS;
  switch (object.kind) {
    case 'Node': {
      const status = object.status as Json;
      const name = String(metadata.name);
      metadata.annotations = {
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      };
      metadata.labels = {
        ...(metadata.labels as Json),
        'node.kubernetes.io/instance-type': 'm6i.xlarge',
        'kubernetes.io/os': 'linux',
      };
      object.spec = {
        providerID: `aws:///${String((metadata.labels as Json)[ZONE_LABEL])}/i-0${name}`,
        podCIDR: '10.244.0.0/24',
      };
      status.capacity = { cpu: '4', memory: '16Gi', pods: '110' };
      (status.allocatable as Json).pods = '110';
      status.conditions = [
        {
          type: 'MemoryPressure',
          status: 'False',
          lastHeartbeatTime: '2026-01-01T00:00:00Z',
          reason: 'KubeletHasSufficientMemory',
        },
        ...(status.conditions as Json[]).map((condition) => ({
          ...condition,
          lastHeartbeatTime: '2026-01-01T00:00:00Z',
          reason: 'KubeletReady',
          message: 'kubelet is posting ready status',
        })),
      ];
      status.addresses = [
        { type: 'InternalIP', address: '10.0.1.17' },
        { type: 'Hostname', address: name },
      ];
      status.images = Array.from({ length: 8 }, (_, i) => ({
        names: [`registry.example.com/image-${i}@sha256:${'ab'.repeat(32)}`],
        sizeBytes: 123456789,
      }));
      status.nodeInfo = {
        kubeletVersion: 'v1.35.0',
        osImage: 'Bottlerocket',
        containerRuntimeVersion: 'containerd://2.0.0',
        machineID: 'x'.repeat(32),
      };
      return object;
    }
    case 'Service': {
      const spec = object.spec as Json;
      spec.selector = { app: String(metadata.name) };
      spec.sessionAffinity = 'None';
      spec.ipFamilyPolicy = 'SingleStack';
      spec.ports = (spec.ports as Json[]).map((port) => ({ ...port, targetPort: 8080 }));
      object.status = { loadBalancer: {} };
      return object;
    }
    case 'EndpointSlice': {
      metadata.annotations = { 'endpoints.kubernetes.io/last-change-trigger-time': '2026-01-01T00:00:00Z' };
      metadata.ownerReferences = [
        {
          apiVersion: 'v1',
          kind: 'Service',
          name: String((metadata.labels as Json)['kubernetes.io/service-name']),
          uid: 'u',
          controller: true,
        },
      ];
      const service = String((metadata.labels as Json)['kubernetes.io/service-name']);
      object.endpoints = (object.endpoints as Json[]).map((endpoint, i) => ({
        ...endpoint,
        targetRef: { kind: 'Pod', namespace: metadata.namespace, name: podName(service, i), uid: `pod-uid-${i}` },
      }));
      return object;
    }
    default:
      return object;
  }
}
