import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseAgentConfig } from '../../apps/agent/src/config.js';
import { helmMissing, runHelm } from '../support/helm.js';
import { validateManifest } from '../support/kubernetes-schemas.js';

/**
 * The agent's Helm chart, rendered by the real `helm template` (values.schema.json enforced, every
 * `fail` live), each manifest checked against the Kubernetes schema of its kind, and the Deployment's
 * arguments parsed by the agent's own command line.
 */
const CHART = join(__dirname, '..', '..', 'deploy', 'helm', 'zonewise-agent');
const skip = helmMissing();
if (skip) console.warn(skip);

const REQUIRED = {
  api: { url: 'https://zonewise.example.com' },
  agentToken: 'zwa_0123456789abcdef',
  image: { repository: 'registry.example.com/zonewise/backend', tag: '0.1.0' },
};

/** Everything optional switched on, with values YAML would mangle if a template forgot to quote them. */
const EVERYTHING = {
  ...REQUIRED,
  agentToken: '',
  existingSecret: { name: 'zonewise-token', key: 'agent-token' },
  clusterName: 'prod: eu #1',
  serviceCidr: '10.96.0.0/12,fd00:10:96::/112',
  extraArgs: ['--push-timeout', '30s'],
  logLevel: 'debug',
  priorityClassName: 'system-cluster-critical',
  imagePullSecrets: [{ name: 'registry-credentials' }],
  image: { repository: 'registry.example.com/zonewise/backend', tag: '0.1', pullPolicy: 'Always' },
  serviceAccount: { create: false, name: 'zonewise-agent-sa' },
  podLabels: { team: 'platform' },
  nodeSelector: { 'kubernetes.io/os': 'linux' },
  tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'infra', effect: 'NoSchedule' }],
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }] }],
      },
    },
  },
  metrics: {
    service: { enabled: true },
    serviceMonitor: { enabled: true, interval: '15s', labels: { release: 'kps' } },
  },
};

interface Rendered {
  source: string;
  manifest: { apiVersion: string; kind: string; metadata: { name: string }; [field: string]: unknown };
}

function render(values: unknown): Rendered[] {
  const run = runHelm(['template', 'zonewise-agent', CHART, '--namespace', 'zonewise'], values);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return run.stdout
    .split(/^---$/m)
    .map((document) => ({ source: /^# Source: (.+)$/m.exec(document)?.[1] ?? '', manifest: parse(document) }))
    .filter((rendered) => rendered.manifest !== null);
}

function renderError(values: unknown): string {
  const run = runHelm(['template', 'zonewise-agent', CHART, '--namespace', 'zonewise'], values);
  expect(run.status).not.toBe(0);
  return run.stderr;
}

function deploymentOf(rendered: Rendered[]) {
  const deployment = rendered.find((entry) => entry.manifest.kind === 'Deployment')!.manifest as unknown as {
    spec: { template: { spec: { containers: { image: string; args: string[] }[]; priorityClassName?: string } } };
  };
  return deployment.spec.template.spec;
}

describe.skipIf(skip !== null)('the zonewise-agent Helm chart', () => {
  it('passes helm lint --strict with the required values', () => {
    const run = runHelm(['lint', '--strict', CHART], REQUIRED);
    expect(run.stdout + run.stderr).toContain('0 chart(s) failed');
    expect(run.status).toBe(0);
  });

  it.each([
    [
      'the required values',
      REQUIRED,
      ['ClusterRole', 'ClusterRoleBinding', 'Deployment', 'Role', 'RoleBinding', 'Secret', 'ServiceAccount'],
    ],
    [
      'everything switched on',
      EVERYTHING,
      ['ClusterRole', 'ClusterRoleBinding', 'Deployment', 'Role', 'RoleBinding', 'Service', 'ServiceMonitor'],
    ],
  ])('with %s renders manifests valid against the Kubernetes schema of each kind', (_, values, kinds) => {
    const rendered = render(values);
    expect(rendered.map((entry) => entry.manifest.kind).sort()).toEqual(kinds);
    for (const { source, manifest } of rendered) {
      expect(validateManifest(manifest), `${source}: ${manifest.kind} ${manifest.metadata.name}`).toEqual([]);
    }
  });

  it('between the two renders, every template produced a manifest (none goes unchecked)', () => {
    const templates = readdirSync(join(CHART, 'templates')).filter((name) => name.endsWith('.yaml'));
    const sources = new Set([...render(REQUIRED), ...render(EVERYTHING)].map((entry) => entry.source));
    expect([...sources].sort()).toEqual(templates.map((name) => `zonewise-agent/templates/${name}`).sort());
  });

  it('renders NOTES.txt on install (client-side dry run): where it pushes, how to check it', () => {
    const notes = (values: unknown) => {
      const run = runHelm(
        [
          'install',
          'zonewise-agent',
          CHART,
          '--namespace',
          'zonewise',
          '--dry-run=client',
          '--kubeconfig',
          '/dev/null',
        ],
        values,
      );
      expect(run.status, run.stderr).toBe(0);
      return run.stdout.slice(run.stdout.indexOf('NOTES:'));
    };
    const plain = notes(REQUIRED);
    expect(plain).toContain('pushing snapshots to https://zonewise.example.com.');
    expect(plain).toContain('kubectl -n zonewise rollout status deploy/zonewise-agent');
    expect(plain).toContain('set serviceCidr');
    expect(notes({ ...REQUIRED, serviceCidr: '10.96.0.0/12' })).not.toContain('set serviceCidr');
  });

  it('the schema check catches what the API server would refuse', () => {
    const bad = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' }, spec: { replicas: 'one' } };
    expect(validateManifest(bad).join('\n')).toMatch(/replicas must be integer/);
    const typo = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'x', lables: {} }, spec: {} };
    expect(validateManifest(typo)).toEqual([
      'v1/Service.metadata.lables: unknown field (V1ObjectMeta has no such field)',
    ]);
  });

  it("quotes every argument: the agent's own parser reads back exactly the values given", () => {
    const spec = deploymentOf(render(EVERYTHING));
    const [container] = spec.containers;
    expect(container!.image).toBe('registry.example.com/zonewise/backend:0.1');
    expect(spec.priorityClassName).toBe('system-cluster-critical');
    // The image's entrypoint takes the role first (deploy/image/zonewise), then the agent's own flags.
    expect(container!.args[0]).toBe('agent');
    const config = parseAgentConfig(container!.args.slice(1), {})!;
    expect(config).toMatchObject({
      apiUrl: 'https://zonewise.example.com',
      tokenFile: '/var/run/secrets/zonewise/token',
      cluster: 'prod: eu #1',
      inCluster: true,
      serviceCidrs: ['10.96.0.0/12', 'fd00:10:96::/112'],
      logLevel: 'debug',
      healthPort: 8080,
      spoolMaxSnapshots: 100,
    });
    expect(container!.args).toContain('--cluster=prod: eu #1');
    expect(container!.args.slice(-2)).toEqual(['--push-timeout', '30s']);
  });

  it('defaults the image tag to the chart appVersion', () => {
    const spec = deploymentOf(render({ ...REQUIRED, image: { repository: 'registry.example.com/zw' } }));
    expect(spec.containers[0]!.image).toBe('registry.example.com/zw:0.1.0');
  });

  it.each([
    [
      'no image repository',
      { ...REQUIRED, image: { repository: '' } },
      /set image\.repository \(and image\.tag\): no public zonewise image exists/,
    ],
    ['no API URL', { ...REQUIRED, api: { url: '' } }, /set api\.url: the base URL of the zonewise API/],
    ['no token', { ...REQUIRED, agentToken: '' }, /set agentToken .* or existingSecret\.name/],
    [
      'a token of another kind',
      { ...REQUIRED, agentToken: 'zwk_not-an-agent-token' },
      /agentToken must be a zonewise agent token/,
    ],
  ])('refuses to render with %s, saying what to set', (_, values, message) => {
    expect(renderError(values)).toMatch(message);
  });

  it.each([
    ['a port that is not a number', { healthPort: '80a' }, "at '/healthPort': got string, want integer"],
    [
      'a duration the agent cannot read',
      { push: { settle: 'soon' } },
      "at '/push/settle': 'soon' does not match pattern",
    ],
    ['an unknown setting', { imageTag: 'v2' }, "additional properties 'imageTag' not allowed"],
    ['an unknown log level', { logLevel: 'verbose' }, "at '/logLevel'"],
    ['an API URL without a scheme', { api: { url: 'zonewise.example.com' } }, "at '/api/url'"],
  ])('values.schema.json refuses %s, naming it', (_, override, message) => {
    expect(renderError({ ...REQUIRED, ...override })).toContain(message);
  });
});
