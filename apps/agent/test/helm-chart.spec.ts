import { loadYaml } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CALICO_CLUSTER_INFORMATION,
  CONFIG_MAP_NAMESPACE,
  FELIX_CONFIGURATION,
  READ_CONFIG_MAPS,
} from '../src/cluster-reader.js';

/**
 * The Helm chart's RBAC against what the agent reads: list+watch on the snapshot resources (Pods and ReplicaSets for their owners), and
 * `get` by name on the objects that tell the data plane. Rendering, schema validation and the agent
 * parsing the rendered arguments are test/repository/helm-chart.spec.ts (with a real helm).
 */

const CHART = join(__dirname, '..', '..', '..', 'deploy', 'helm', 'zonewise-agent');
const template = (name: string) => readFileSync(join(CHART, 'templates', name), 'utf8');
const values = loadYaml<Record<string, unknown>>(readFileSync(join(CHART, 'values.yaml'), 'utf8'));

/** Lines without template actions, which are plain YAML in these templates. */
function staticYaml(text: string): unknown {
  return loadYaml(
    text
      .split('\n')
      .filter((line) => !line.includes('{{'))
      .join('\n'),
  );
}

describe('deploy/helm/zonewise-agent', () => {
  it('grants list and watch on exactly nodes, services, endpointslices, servicecidrs, pods and replicasets, and the data plane reads', () => {
    const role = staticYaml(template('clusterrole.yaml')) as { kind: string; rules: unknown[] };
    expect(role.kind).toBe('ClusterRole');
    expect(role.rules).toEqual([
      { apiGroups: [''], resources: ['nodes', 'services', 'pods'], verbs: ['list', 'watch'] },
      { apiGroups: ['apps'], resources: ['replicasets'], verbs: ['list', 'watch'] },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
      { apiGroups: ['networking.k8s.io'], resources: ['servicecidrs'], verbs: ['list', 'watch'] },
      { apiGroups: [''], resources: ['namespaces'], verbs: ['list'] },
      {
        apiGroups: [FELIX_CONFIGURATION.group],
        resources: [FELIX_CONFIGURATION.plural, CALICO_CLUSTER_INFORMATION.plural],
        resourceNames: [FELIX_CONFIGURATION.name],
        verbs: ['get'],
      },
      { nonResourceURLs: ['/version', '/version/'], verbs: ['get'] },
    ]);
  });

  it('grants get on the data plane ConfigMaps by name, in kube-system only', () => {
    const role = staticYaml(template('role.yaml')) as {
      kind: string;
      metadata: { namespace: string };
      rules: unknown[];
    };
    expect(role.kind).toBe('Role');
    expect(role.metadata.namespace).toBe(CONFIG_MAP_NAMESPACE);
    expect(role.rules).toEqual([
      { apiGroups: [''], resources: ['configmaps'], resourceNames: Object.values(READ_CONFIG_MAPS), verbs: ['get'] },
    ]);
    const binding = staticYaml(template('rolebinding.yaml')) as { kind: string; metadata: { namespace: string } };
    expect(binding).toMatchObject({ kind: 'RoleBinding', metadata: { namespace: CONFIG_MAP_NAMESPACE } });
    expect(template('rolebinding.yaml')).toContain('name: {{ include "zonewise-agent.serviceAccountName" . }}');
  });

  it('probes the endpoints the agent serves, mounts the token Secret and bounds resources', () => {
    const deployment = template('deployment.yaml');
    expect(deployment).toMatch(/livenessProbe:\s+httpGet:\s+path: \/livez/);
    expect(deployment).toMatch(/readinessProbe:\s+httpGet:\s+path: \/readyz/);
    expect(deployment).toContain('mountPath: /var/run/secrets/zonewise');
    expect(values.resources).toMatchObject({
      requests: { cpu: expect.any(String), memory: expect.any(String) },
      limits: { memory: expect.any(String) },
    });
    expect(template('secret.yaml')).toContain('stringData:\n  token: {{ .Values.agentToken | quote }}');
    const chart = loadYaml<{ name: string; apiVersion: string }>(readFileSync(join(CHART, 'Chart.yaml'), 'utf8'));
    expect(chart).toMatchObject({ apiVersion: 'v2', name: 'zonewise-agent' });
  });
});
