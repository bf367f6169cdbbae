import { loadYaml } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildAgentCommand, parseAgentConfig } from '../src/config.js';

/**
 * The Helm chart against the agent it deploys (there is no helm binary here to render it): the RBAC is
 * exactly list+watch on the four resources, every flag the Deployment passes exists, and the chart's
 * default values make a configuration the agent accepts.
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

function valueAt(path: string): unknown {
  return path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)?.[key], values);
}

/** The container args with `{{ .Values.x }}` filled in from values.yaml (plus `overrides`); conditional ones are left out. */
function defaultArgs(overrides: Record<string, string> = {}): string[] {
  const lines = template('deployment.yaml').split('\n');
  const start = lines.findIndex((line) => line.trim() === 'args:');
  const args: string[] = [];
  let depth = 0;
  for (const line of lines.slice(start + 1)) {
    if (/{{-? (with|range|if) /.test(line)) depth++;
    else if (/{{-? end /.test(line)) depth--;
    else if (/^\s+- --/.test(line)) {
      if (depth === 0) {
        const arg = line.trim().slice(2);
        args.push(
          arg.replace(/{{ \.Values\.([\w.]+) }}/g, (_, path: string) => overrides[path] ?? String(valueAt(path))),
        );
      }
    } else break;
  }
  return args;
}

describe('deploy/helm/zonewise-agent', () => {
  it('grants list and watch on exactly nodes, services, endpointslices and servicecidrs', () => {
    const role = staticYaml(template('clusterrole.yaml')) as { kind: string; rules: unknown[] };
    expect(role.kind).toBe('ClusterRole');
    expect(role.rules).toEqual([
      { apiGroups: [''], resources: ['nodes', 'services'], verbs: ['list', 'watch'] },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
      { apiGroups: ['networking.k8s.io'], resources: ['servicecidrs'], verbs: ['list', 'watch'] },
    ]);
  });

  it('passes only flags the agent knows, and its defaults make a valid configuration', () => {
    const known = new Set(buildAgentCommand().options.map((option) => option.long));
    const args = defaultArgs({ 'api.url': 'https://zonewise.example.com' });
    expect(args.length).toBeGreaterThan(15);
    for (const arg of args) expect(known, arg).toContain(arg.split('=')[0]);
    for (const conditional of ['--cluster', '--service-cidr']) {
      expect(template('deployment.yaml')).toContain(`- ${conditional}={{ . }}`);
      expect(known).toContain(conditional);
    }
    const config = parseAgentConfig(args, {})!;
    expect(config).toMatchObject({
      apiUrl: 'https://zonewise.example.com',
      inCluster: true,
      tokenFile: '/var/run/secrets/zonewise/token',
      pushMinIntervalMs: 30_000,
      pushMaxIntervalMs: 300_000,
      spoolDir: '/var/lib/zonewise-agent/spool',
      healthPort: 8080,
    });
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
