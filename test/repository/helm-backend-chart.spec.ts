import { dbEnvSchema } from '@zw/db';
import {
  enqueueSnapshot,
  parseRedisUrl,
  queuePrefixOf,
  queueRegistration,
  redisConnectionFromUrl,
  SNAPSHOTS_QUEUE,
} from '@zw/queue';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { API_SETTING_SCHEMAS, validateApiEnv } from '../../apps/api/src/config.js';
import { loadWorkerConfig, WORKER_SETTING_SCHEMAS } from '../../apps/worker/src/config.js';
import { helmMissing, runHelm } from '../support/helm.js';
import { validateManifest } from '../support/kubernetes-schemas.js';
import { PROMETHEUS_BINARY } from '../support/prometheus.js';
import { deletePrefixKeys, TEST_REDIS_URL, uniquePrefix } from '../support/redis.js';

/**
 * The backend's Helm chart (deploy/helm/zonewise), rendered by the real `helm template` (values.schema.json
 * enforced, every `fail` live): each manifest checked against the Kubernetes schema of its kind, or its
 * CRD's (KEDA, Prometheus Operator); the containers' environment read back by the apps' own boot-time
 * schemas; the KEDA trigger's list measured on a real Redis queue; the worker's probe command run; the
 * PrometheusRule checked by promtool.
 */
const ROOT = join(__dirname, '..', '..');
const CHART = join(ROOT, 'deploy', 'helm', 'zonewise');
const skip = helmMissing();
if (skip) console.warn(skip);
const PROMTOOL = join(dirname(PROMETHEUS_BINARY), 'promtool');
const KEDA_API = 'keda.sh/v1alpha1/ScaledObject';

const REQUIRED = {
  image: { repository: 'registry.example.com/zonewise/backend', tag: '0.1.0' },
  secrets: {
    DATABASE_URL: 'postgresql://zonewise:s3cret@db.example.com:5432/zonewise?sslmode=require',
    REDIS_URL: 'rediss://default:p%40ss%23word!@redis.example.com:6380/2',
  },
};

/** Every option on, with values YAML would mangle if a template forgot to quote them. */
const EVERYTHING = {
  ...REQUIRED,
  secrets: {
    ...REQUIRED.secrets,
    SECRET_ENCRYPTION_KEYS: 'k2:a-long-enough-keyring-key,k1:a-long-enough-webhook-key',
    TRAFFIC_SOURCES_ENCRYPTION_KEY: 'a-long-enough-traffic-key',
    DATABASE_READ_URL: 'postgresql://zonewise:s3cret@replica.example.com:5432/zonewise?sslmode=require',
  },
  imagePullSecrets: [{ name: 'registry-credentials' }],
  config: { QUEUE_PREFIX: 'zw-prod', INGEST_MAX_BODY_BYTES: 67108864, TRUST_PROXY: '10.0.0.0/8' },
  api: {
    config: { HEAVY_READ_DUTY_CYCLE: 0.5, CORS_ORIGINS: 'https://ops.example.com' },
    extraEnv: [{ name: 'NODE_EXTRA_CA_CERTS', value: '/etc/ssl/rds/ca.pem' }],
    ingress: {
      enabled: true,
      className: 'nginx',
      annotations: { 'nginx.ingress.kubernetes.io/proxy-body-size': '64m' },
      hosts: [{ host: 'zonewise.example.com', paths: [{ path: '/', pathType: 'Prefix' }] }],
      tls: [{ secretName: 'zonewise-tls', hosts: ['zonewise.example.com'] }],
    },
    autoscaling: { targetMemoryUtilizationPercentage: 80 },
    podLabels: { team: 'platform' },
    priorityClassName: 'high: priority #1',
    nodeSelector: { 'kubernetes.io/os': 'linux' },
    tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'zonewise', effect: 'NoSchedule' }],
  },
  worker: {
    config: { WORKER_CONCURRENCY: 4, SWEEP_EVERY_MS: 120000 },
    podDisruptionBudget: { enabled: true, maxUnavailable: 1 },
  },
  metrics: {
    serviceMonitor: { enabled: true, labels: { release: 'kube-prometheus-stack' } },
    prometheusRule: { enabled: true, labels: { release: 'kube-prometheus-stack' } },
  },
  serviceAccount: { annotations: { 'eks.amazonaws.com/role-arn': 'arn:aws:iam::123456789012:role/zonewise' } },
  extraVolumes: [{ name: 'rds-ca', configMap: { name: 'rds-ca-bundle' } }],
  extraVolumeMounts: [{ name: 'rds-ca', mountPath: '/etc/ssl/rds', readOnly: true }],
};

/** A Secret of the operator's, KEDA pointed at a Redis Cluster. */
const EXISTING_SECRET = {
  image: REQUIRED.image,
  existingSecret: 'zonewise-credentials',
  worker: {
    autoscaling: {
      keda: true,
      redis: {
        address: 'node-1.redis.example.com:6379,node-2.redis.example.com:6379',
        cluster: true,
        tls: true,
        authSecret: { name: 'zonewise-redis-auth', passwordKey: 'auth-token', usernameKey: 'user' },
      },
    },
  },
  serviceAccount: { create: false, name: 'zonewise-irsa' },
};

type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  [field: string]: unknown;
};
interface Rendered {
  source: string;
  manifest: Manifest;
}
interface EnvEntry {
  name: string;
  value?: string;
  valueFrom?: unknown;
}
interface Container {
  name: string;
  image: string;
  args: string[];
  env: EnvEntry[];
  envFrom: { secretRef: { name: string } }[];
  securityContext: Record<string, unknown>;
  volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
  startupProbe?: { exec?: { command: string[] }; httpGet?: { path: string; port: string } };
  livenessProbe?: { exec?: { command: string[] }; httpGet?: { path: string; port: string } };
  readinessProbe?: { httpGet?: { path: string; port: string } };
}
interface PodSpec {
  containers: Container[];
  securityContext: Record<string, unknown>;
  automountServiceAccountToken: boolean;
  serviceAccountName?: string;
  volumes: { name: string; emptyDir?: unknown }[];
  priorityClassName?: string;
}

function helm(args: string[], values: unknown) {
  return runHelm([...args, 'zonewise', CHART, '--namespace', 'zonewise'], values);
}

function render(values: unknown, extra: string[] = []): Rendered[] {
  const run = helm(['template', ...extra], values);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return run.stdout
    .split(/^---$/m)
    .map((document) => ({ source: /^# Source: (.+)$/m.exec(document)?.[1] ?? '', manifest: parse(document) }))
    .filter((rendered) => rendered.manifest !== null);
}

function renderError(values: unknown, extra: string[] = []): string {
  const run = helm(['template', ...extra], values);
  expect(run.status).not.toBe(0);
  return run.stderr;
}

const find = (rendered: Rendered[], kind: string, name: string) =>
  rendered.find((entry) => entry.manifest.kind === kind && entry.manifest.metadata.name === name)?.manifest;

function podSpec(manifest: Manifest | undefined): PodSpec {
  expect(manifest).toBeDefined();
  return (manifest as unknown as { spec: { template: { spec: PodSpec } } }).spec.template.spec;
}

/** A container's environment as Kubernetes builds it: envFrom's Secret first, `env` over it. */
function environmentOf(rendered: Rendered[], container: Container): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { secretRef } of container.envFrom ?? []) {
    const secret = find(rendered, 'Secret', secretRef.name) as { stringData: Record<string, string> } | undefined;
    expect(secret, `the Secret ${secretRef.name}`).toBeDefined();
    Object.assign(env, secret!.stringData);
  }
  for (const entry of container.env) if (entry.value !== undefined) env[entry.name] = entry.value;
  return env;
}

const keysOf = (...schemas: { shape: object }[]) => new Set(schemas.flatMap((schema) => Object.keys(schema.shape)));
/** Every setting each app reads at boot (its zod schema), as docker-compose.spec.ts reads them too. */
const API_SETTINGS = keysOf(...API_SETTING_SCHEMAS);
const WORKER_SETTINGS = keysOf(...WORKER_SETTING_SCHEMAS);
/** Set by the chart itself. */
const CHART_SETS = ['HOST', 'METRICS_HOST', 'METRICS_PORT', 'NODE_ENV', 'PORT', 'WORKER_HEARTBEAT_FILE'];

interface ValuesSchema {
  properties: {
    secrets: { properties: Record<string, unknown> };
    config: { properties: Record<string, unknown> };
  };
  definitions: {
    apiSettings: { properties: Record<string, unknown> };
    workerSettings: { properties: Record<string, unknown> };
  };
}
const valuesSchema = JSON.parse(readFileSync(join(CHART, 'values.schema.json'), 'utf8')) as ValuesSchema;
const SECRET_SETTINGS = Object.keys(valuesSchema.properties.secrets.properties);

/** A valid value of every setting, as .env.example documents it (`# NAME=value` lines too). */
function exampleSettings(): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const line of readFileSync(join(ROOT, '.env.example'), 'utf8').split('\n')) {
    const match = /^(?:# )?([A-Z][A-Z0-9_]*)=(\S*)$/.exec(line);
    if (match) settings[match[1]!] = match[2]!;
  }
  return settings;
}

describe.skipIf(skip !== null)('the zonewise Helm chart (backend)', () => {
  const renders = {
    required: () => render(REQUIRED),
    everything: () => render(EVERYTHING, ['--api-versions', KEDA_API]),
    existingSecret: () => render(EXISTING_SECRET),
  };

  it.each([
    ['the required values', REQUIRED],
    ['everything switched on', EVERYTHING],
    ['an existing Secret', EXISTING_SECRET],
  ])('passes helm lint --strict with %s', (_, values) => {
    const run = runHelm(['lint', '--strict', CHART], values);
    expect(run.stdout + run.stderr).toContain('0 chart(s) failed');
    expect(run.status).toBe(0);
  });

  it.each([
    [
      'the required values (no KEDA in the cluster)',
      'required' as const,
      [
        'Deployment',
        'Deployment',
        'HorizontalPodAutoscaler',
        'HorizontalPodAutoscaler',
        'Job',
        'PodDisruptionBudget',
        'Secret',
        'Secret',
        'Service',
        'Service',
        'ServiceAccount',
      ],
    ],
    [
      'everything switched on, KEDA installed',
      'everything' as const,
      [
        'Deployment',
        'Deployment',
        'HorizontalPodAutoscaler',
        'Ingress',
        'Job',
        'PodDisruptionBudget',
        'PodDisruptionBudget',
        'PrometheusRule',
        'ScaledObject',
        'Secret',
        'Secret',
        'Secret',
        'Service',
        'Service',
        'ServiceAccount',
        'ServiceMonitor',
        'TriggerAuthentication',
      ],
    ],
    [
      'an existing Secret and a Redis Cluster for KEDA',
      'existingSecret' as const,
      [
        'Deployment',
        'Deployment',
        'HorizontalPodAutoscaler',
        'Job',
        'PodDisruptionBudget',
        'ScaledObject',
        'Service',
        'Service',
        'TriggerAuthentication',
      ],
    ],
  ])('with %s renders manifests valid against the schema of each kind', (_, which, kinds) => {
    const rendered = renders[which]();
    expect(rendered.map((entry) => entry.manifest.kind).sort()).toEqual(kinds);
    for (const { source, manifest } of rendered) {
      expect(validateManifest(manifest), `${source}: ${manifest.kind} ${manifest.metadata.name}`).toEqual([]);
    }
  });

  it('between the renders, every template produced a manifest (none goes unchecked)', () => {
    const templates = readdirSync(join(CHART, 'templates')).filter((name) => name.endsWith('.yaml'));
    const sources = new Set(
      [...renders.required(), ...renders.everything(), ...renders.existingSecret()].map((entry) => entry.source),
    );
    expect([...sources].sort()).toEqual(templates.map((name) => `zonewise/templates/${name}`).sort());
  });

  it('the schema check catches what the API server would refuse in these kinds', () => {
    const hpa = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'x' },
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'x' }, maxReplicas: 'ten' },
    };
    expect(validateManifest(hpa).join('\n')).toMatch(/maxReplicas must be integer/);
    const scaledObject = {
      apiVersion: 'keda.sh/v1alpha1',
      kind: 'ScaledObject',
      metadata: { name: 'x' },
      spec: { scaleTargetRef: { name: 'x' } },
    };
    expect(validateManifest(scaledObject).join('\n')).toMatch(/triggers/);
  });

  describe('autoscaling', () => {
    const targets = (rendered: Rendered[]) =>
      rendered
        .filter((entry) => ['HorizontalPodAutoscaler', 'ScaledObject'].includes(entry.manifest.kind))
        .map((entry) => ({
          kind: entry.manifest.kind,
          target: (entry.manifest as unknown as { spec: { scaleTargetRef: { name: string } } }).spec.scaleTargetRef
            .name,
        }));

    it('without KEDA in the cluster, both Deployments get a CPU autoscaler', () => {
      expect(targets(renders.required()).sort((a, b) => a.target.localeCompare(b.target))).toEqual([
        { kind: 'HorizontalPodAutoscaler', target: 'zonewise-api' },
        { kind: 'HorizontalPodAutoscaler', target: 'zonewise-worker' },
      ]);
    });

    it('with KEDA the worker gets a ScaledObject and no HPA of the chart (KEDA makes its own)', () => {
      expect(targets(renders.everything()).sort((a, b) => a.target.localeCompare(b.target))).toEqual([
        { kind: 'HorizontalPodAutoscaler', target: 'zonewise-api' },
        { kind: 'ScaledObject', target: 'zonewise-worker' },
      ]);
    });

    it('keda=false keeps the CPU autoscaler even where KEDA is installed; autoscaling off fixes replicas', () => {
      const off = render({ ...REQUIRED, worker: { autoscaling: { keda: false } } }, ['--api-versions', KEDA_API]);
      expect(targets(off).map((entry) => entry.kind)).toEqual(['HorizontalPodAutoscaler', 'HorizontalPodAutoscaler']);
      const fixed = render({
        ...REQUIRED,
        api: { replicas: 3, autoscaling: { enabled: false } },
        worker: { replicas: 2, autoscaling: { enabled: false } },
      });
      expect(targets(fixed)).toEqual([]);
      const replicas = (name: string) =>
        (find(fixed, 'Deployment', name) as unknown as { spec: { replicas: number } }).spec.replicas;
      expect([replicas('zonewise-api'), replicas('zonewise-worker')]).toEqual([3, 2]);
      // Under an autoscaler the Deployment names no replica count, so an upgrade does not reset it.
      expect(
        (find(renders.required(), 'Deployment', 'zonewise-api') as unknown as { spec: object }).spec,
      ).not.toHaveProperty('replicas');
    });

    it("the ScaledObject's redis trigger uses only parameters KEDA's redis scalers read", () => {
      // keda pkg/scalers/redis_scaler.go (v2.20): redisMetadata and redisConnectionInfo's trigger-metadata names.
      const known = [
        'address',
        'addresses',
        'listName',
        'listLength',
        'activationListLength',
        'databaseIndex',
        'enableTLS',
      ];
      for (const rendered of [renders.everything(), renders.existingSecret()]) {
        const scaledObject = rendered.find((entry) => entry.manifest.kind === 'ScaledObject')!.manifest as unknown as {
          spec: { triggers: { type: string; metadata: Record<string, string> }[] };
        };
        for (const trigger of scaledObject.spec.triggers) {
          expect(['redis', 'redis-cluster']).toContain(trigger.type);
          expect(Object.keys(trigger.metadata).filter((name) => !known.includes(name))).toEqual([]);
          for (const value of Object.values(trigger.metadata)) expect(typeof value).toBe('string');
        }
      }
    });

    it('a Redis Cluster gets the redis-cluster scaler with its nodes, and the credentials of your Secret', () => {
      const rendered = renders.existingSecret();
      const scaledObject = find(rendered, 'ScaledObject', 'zonewise-worker') as unknown as {
        spec: { triggers: { type: string; metadata: Record<string, string>; authenticationRef: { name: string } }[] };
      };
      const [trigger] = scaledObject.spec.triggers;
      expect(trigger!.type).toBe('redis-cluster');
      expect(trigger!.metadata).toMatchObject({
        addresses: 'node-1.redis.example.com:6379,node-2.redis.example.com:6379',
        enableTLS: 'true',
        // Each queue's keys carry its hash tag on a cluster (libs/queue redis-target.ts queuePrefixOf).
        listName: 'zw:{snapshots}:snapshots:wait',
      });
      const auth = find(rendered, 'TriggerAuthentication', trigger!.authenticationRef.name) as unknown as {
        spec: { secretTargetRef: { parameter: string; name: string; key: string }[] };
      };
      expect(auth.spec.secretTargetRef).toEqual([
        { parameter: 'password', name: 'zonewise-redis-auth', key: 'auth-token' },
        { parameter: 'username', name: 'zonewise-redis-auth', key: 'user' },
      ]);
    });

    it.each([
      'redis://127.0.0.1:6379',
      'redis://redis.example.com',
      'rediss://default:p%40ss%23word!@redis.example.com:6380/2',
      'redis://:only-a-password@10.0.0.5:6379/15',
      'rediss://app%2Buser:c0l%3An%25%20sp@[fd00::5]:6390',
      'redis+cluster://node-1.redis.example.com:6379,node-2.redis.example.com,[fd00::7]:7001',
      'rediss+cluster://default:t0k%2Fen@clustercfg.zonewise.abc123.euw1.cache.amazonaws.com:6379',
    ])("KEDA reaches Redis where the apps do: %s, read as the apps' own parser reads it", (url) => {
      const rendered = render({ ...REQUIRED, secrets: { ...REQUIRED.secrets, REDIS_URL: url } }, [
        '--api-versions',
        KEDA_API,
      ]);
      const target = parseRedisUrl(url);
      const trigger = (
        find(rendered, 'ScaledObject', 'zonewise-worker') as unknown as {
          spec: {
            triggers: { type: string; metadata: Record<string, string>; authenticationRef?: { name: string } }[];
          };
        }
      ).spec.triggers[0]!;
      // host:port as go-redis dials it (an IPv6 address in brackets).
      const addresses = target.nodes.map(({ host, port }) => `${host.includes(':') ? `[${host}]` : host}:${port}`);
      if (target.cluster) {
        expect(trigger.type).toBe('redis-cluster');
        expect(trigger.metadata.addresses).toBe(addresses.join(','));
        expect(trigger.metadata).not.toHaveProperty('databaseIndex');
      } else {
        expect(trigger.type).toBe('redis');
        expect(trigger.metadata.address).toBe(addresses[0]);
        expect(trigger.metadata.databaseIndex).toBe(String(target.db ?? 0));
      }
      expect(trigger.metadata.enableTLS).toBe(String(target.tls));
      expect(trigger.metadata.listName).toBe(`${queuePrefixOf('zw', SNAPSHOTS_QUEUE, target.cluster)}:snapshots:wait`);
      const secret = find(rendered, 'Secret', 'zonewise-worker-keda-redis') as
        { stringData: Record<string, string> } | undefined;
      expect(secret?.stringData.username).toBe(target.username);
      expect(secret?.stringData.password).toBe(target.password);
      expect(trigger.authenticationRef !== undefined).toBe(secret !== undefined);
    });

    describe('the trigger measures the queue the worker consumes', () => {
      const prefix = uniquePrefix('helm-keda');
      let queue: Queue;
      let redis: Redis;
      beforeAll(() => {
        // As the apps register it (BullModule.registerQueue with libs/queue's queueRegistration).
        const { name, prefix: queuePrefix } = queueRegistration(TEST_REDIS_URL, prefix, SNAPSHOTS_QUEUE);
        queue = new Queue(name, { connection: redisConnectionFromUrl(TEST_REDIS_URL), prefix: queuePrefix });
        redis = new Redis(TEST_REDIS_URL);
      });
      afterAll(async () => {
        await queue?.close();
        redis?.disconnect();
        await deletePrefixKeys(prefix);
      });

      it('its listName is the Redis list BullMQ keeps waiting snapshot jobs in, under QUEUE_PREFIX', async () => {
        const rendered = render({ ...REQUIRED, config: { QUEUE_PREFIX: prefix } }, ['--api-versions', KEDA_API]);
        const listName = (
          find(rendered, 'ScaledObject', 'zonewise-worker') as unknown as {
            spec: { triggers: { metadata: { listName: string } }[] };
          }
        ).spec.triggers[0]!.metadata.listName;
        for (let n = 0; n < 3; n++) await enqueueSnapshot(queue, { snapshotId: `snapshot-${n}`, clusterId: 'cluster' });
        // What KEDA's redis scaler asks (its script: TYPE, then LLEN for a list).
        expect(await redis.type(listName)).toBe('list');
        expect(await redis.llen(listName)).toBe(3);
        expect(await queue.getWaitingCount()).toBe(3);
      });
    });
  });

  describe("the containers' settings", () => {
    it("values.schema.json names every setting the apps read, secrets apart, and nothing they don't", () => {
      const settable = (reads: Set<string>) =>
        [...reads].filter((name) => !CHART_SETS.includes(name) && !SECRET_SETTINGS.includes(name)).sort();
      expect(Object.keys(valuesSchema.definitions.apiSettings.properties).sort()).toEqual(settable(API_SETTINGS));
      expect(Object.keys(valuesSchema.definitions.workerSettings.properties).sort()).toEqual(settable(WORKER_SETTINGS));
      expect(Object.keys(valuesSchema.properties.config.properties).sort()).toEqual(
        [...new Set([...settable(API_SETTINGS), ...settable(WORKER_SETTINGS)])].sort(),
      );
      const reads = new Set([...API_SETTINGS, ...WORKER_SETTINGS]);
      expect(SECRET_SETTINGS.filter((name) => !reads.has(name))).toEqual([]);
      // Credentials are never plain config.
      for (const name of reads) {
        if (/(SECRET|TOKEN|PASSWORD|ENCRYPTION_KEYS?)$|^(DATABASE(_READ)?|REDIS|SMTP)_URL$/.test(name))
          expect(SECRET_SETTINGS).toContain(name);
      }
    });

    it('every setting, given as .env.example documents it, reaches the apps and passes their boot-time checks', () => {
      const example = exampleSettings();
      const config = Object.fromEntries(
        Object.keys(valuesSchema.properties.config.properties)
          .filter((name) => example[name] !== undefined)
          .map((name) => [name, example[name]!]),
      );
      // Only settings without a documented value are left out (optional ones, off by default).
      expect(Object.keys(valuesSchema.properties.config.properties).filter((name) => !(name in config))).toEqual([]);
      const rendered = render({ ...EVERYTHING, config, api: {}, worker: {} });
      const api = podSpec(find(rendered, 'Deployment', 'zonewise-api')).containers[0]!;
      const worker = podSpec(find(rendered, 'Deployment', 'zonewise-worker')).containers[0]!;
      const apiEnv = environmentOf(rendered, api);
      const workerEnv = environmentOf(rendered, worker);
      for (const [name, value] of Object.entries(config)) {
        if (API_SETTINGS.has(name)) expect(apiEnv[name], name).toBe(value);
        if (WORKER_SETTINGS.has(name)) expect(workerEnv[name], name).toBe(value);
      }
      expect(() => validateApiEnv(apiEnv)).not.toThrow();
      expect(() => loadWorkerConfig(workerEnv)).not.toThrow();
      for (const schema of API_SETTING_SCHEMAS) expect(schema.safeParse(apiEnv).error).toBeUndefined();
      for (const schema of WORKER_SETTING_SCHEMAS) expect(schema.safeParse(workerEnv).error).toBeUndefined();
    });

    it("caps the worker's V8 heap below its memory limit, unless told not to", () => {
      const heapOption = (rendered: Rendered[]) =>
        podSpec(find(rendered, 'Deployment', 'zonewise-worker'))
          .containers[0]!.env.filter((entry) => entry.name === 'NODE_OPTIONS')
          .map((entry) => entry.value);
      expect(heapOption(render(REQUIRED))).toEqual(['--max-old-space-size=1280']);
      expect(heapOption(render({ ...REQUIRED, worker: { maxHeapMb: 3072 } }))).toEqual(['--max-old-space-size=3072']);
      expect(heapOption(render({ ...REQUIRED, worker: { maxHeapMb: null } }))).toEqual([]);
      expect(renderError({ ...REQUIRED, worker: { maxHeapMb: '2Gi' } })).toMatch(/maxHeapMb/);
    });

    it('numbers keep their digits, a role setting wins over the shared one, secrets come from the Secret', () => {
      const rendered = renders.everything();
      const api = podSpec(find(rendered, 'Deployment', 'zonewise-api')).containers[0]!;
      const worker = podSpec(find(rendered, 'Deployment', 'zonewise-worker')).containers[0]!;
      const apiConfig = validateApiEnv(environmentOf(rendered, api));
      expect(apiConfig.INGEST_MAX_BODY_BYTES).toBe(67108864);
      expect(apiConfig.HEAVY_READ_DUTY_CYCLE).toBe(0.5);
      expect(apiConfig.TRUST_PROXY).toBe('10.0.0.0/8');
      expect(apiConfig.CORS_ORIGINS).toEqual(['https://ops.example.com']);
      expect(apiConfig.QUEUE_PREFIX).toBe('zw-prod');
      expect(apiConfig.DATABASE_URL).toBe(REQUIRED.secrets.DATABASE_URL);
      expect(apiConfig.PORT).toBe(3000);
      expect(apiConfig.HOST).toBe('0.0.0.0');
      expect(apiConfig.METRICS_PORT).toBe(9464);
      expect(api.env.find((entry) => entry.name === 'NODE_EXTRA_CA_CERTS')?.value).toBe('/etc/ssl/rds/ca.pem');
      const workerConfig = loadWorkerConfig(environmentOf(rendered, worker));
      expect(workerConfig.WORKER_CONCURRENCY).toBe(4);
      expect(workerConfig.QUEUE_PREFIX).toBe('zw-prod');
      expect(workerConfig.REDIS_URL).toBe(REQUIRED.secrets.REDIS_URL);
      expect(workerConfig.WORKER_HEARTBEAT_FILE).toBe('/tmp/zonewise-worker.alive');
      // The read replica reaches both: the API's savings and trends, the worker's reports.
      expect(apiConfig.DATABASE_READ_URL).toBe(EVERYTHING.secrets.DATABASE_READ_URL);
      expect(workerConfig.DATABASE_READ_URL).toBe(EVERYTHING.secrets.DATABASE_READ_URL);
      // api.config reaches the API only.
      expect(worker.env.map((entry) => entry.name)).not.toContain('HEAVY_READ_DUTY_CYCLE');
      // No credential is written into a Deployment: they all come from the Secret.
      for (const container of [api, worker]) {
        for (const name of SECRET_SETTINGS) expect(container.env.map((entry) => entry.name)).not.toContain(name);
      }
      const deploymentText = stringify(find(rendered, 'Deployment', 'zonewise-api'));
      expect(deploymentText).not.toContain('s3cret');
    });

    it('with an existing Secret, every container reads it and the chart makes no Secret of its own', () => {
      const rendered = renders.existingSecret();
      expect(rendered.filter((entry) => entry.manifest.kind === 'Secret')).toEqual([]);
      const job = podSpec(find(rendered, 'Job', 'zonewise-migrations'));
      for (const spec of [
        podSpec(find(rendered, 'Deployment', 'zonewise-api')),
        podSpec(find(rendered, 'Deployment', 'zonewise-worker')),
        job,
      ]) {
        expect(spec.containers[0]!.envFrom).toEqual([{ secretRef: { name: 'zonewise-credentials' } }]);
      }
      expect(job.serviceAccountName).toBe('zonewise-irsa');
    });
  });

  describe('the pods', () => {
    const pods = (rendered: Rendered[]) =>
      rendered
        .filter((entry) => ['Deployment', 'Job'].includes(entry.manifest.kind))
        .map((entry) => ({ name: entry.manifest.metadata.name, spec: podSpec(entry.manifest) }));

    it('run the image roles its entrypoint knows, hardened: non-root, read-only root, no capabilities', () => {
      const entrypoint = readFileSync(join(ROOT, 'deploy', 'image', 'zonewise'), 'utf8');
      const roles = Object.fromEntries(
        pods(renders.everything()).map(({ name, spec }) => [name, spec.containers[0]!.args]),
      );
      expect(roles).toEqual({
        'zonewise-api': ['api'],
        'zonewise-worker': ['worker'],
        'zonewise-migrations': ['migrate'],
      });
      for (const [role] of Object.values(roles)) expect(entrypoint).toMatch(new RegExp(`^  ${role}\\)`, 'm'));
      for (const { name, spec } of pods(renders.everything())) {
        expect(spec.securityContext, name).toMatchObject({
          runAsNonRoot: true,
          runAsUser: 65532,
          seccompProfile: { type: 'RuntimeDefault' },
        });
        expect(spec.automountServiceAccountToken, name).toBe(false);
        const [container] = spec.containers;
        expect(container!.image).toBe('registry.example.com/zonewise/backend:0.1.0');
        expect(container!.securityContext, name).toEqual({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
        expect(container!.volumeMounts, name).toEqual([
          { name: 'tmp', mountPath: '/tmp' },
          { name: 'rds-ca', mountPath: '/etc/ssl/rds', readOnly: true },
        ]);
        expect(spec.volumes.find((volume) => volume.name === 'tmp')?.emptyDir, name).toBeDefined();
      }
      expect(podSpec(find(renders.everything(), 'Deployment', 'zonewise-api')).priorityClassName).toBe(
        'high: priority #1',
      );
    });

    it('/metrics is scraped on its own port, through a ClusterIP Service of its own, never the API Service or Ingress', () => {
      const rendered = renders.everything();
      const [api] = podSpec(find(rendered, 'Deployment', 'zonewise-api')).containers;
      const ports = (api as unknown as { ports: { name: string; containerPort: number }[] }).ports;
      expect(ports).toEqual([
        { name: 'http', containerPort: 3000, protocol: 'TCP' },
        { name: 'metrics', containerPort: 9464, protocol: 'TCP' },
      ]);
      type ServiceSpec = {
        metadata: { labels: Record<string, string> };
        spec: { type: string; selector: Record<string, string>; ports: { name: string; targetPort: string }[] };
      };
      const service = find(rendered, 'Service', 'zonewise-api') as unknown as ServiceSpec;
      const metricsService = find(rendered, 'Service', 'zonewise-api-metrics') as unknown as ServiceSpec;
      expect(service.spec.ports.map((port) => port.targetPort)).toEqual(['http']);
      expect(metricsService.spec.type).toBe('ClusterIP');
      expect(metricsService.spec.ports).toEqual([
        { name: 'metrics', port: 9464, targetPort: 'metrics', protocol: 'TCP' },
      ]);
      expect(metricsService.spec.selector).toEqual(service.spec.selector);
      const monitor = find(rendered, 'ServiceMonitor', 'zonewise-api') as unknown as {
        spec: { selector: { matchLabels: Record<string, string> }; endpoints: { port: string; path: string }[] };
      };
      expect(monitor.spec.endpoints.map(({ port, path }) => ({ port, path }))).toEqual([
        { port: 'metrics', path: '/metrics' },
      ]);
      // The monitor selects the metrics Service only.
      const selects = (labels: Record<string, string>) =>
        Object.entries(monitor.spec.selector.matchLabels).every(([key, value]) => labels[key] === value);
      expect([selects(metricsService.metadata.labels), selects(service.metadata.labels)]).toEqual([true, false]);
      const ingress = stringify(find(rendered, 'Ingress', 'zonewise-api'));
      expect(ingress).not.toContain('metrics');
      expect(ingress).not.toContain('9464');
    });

    it('the API is probed on /healthz (alive) and /readyz (ready), on its named port', () => {
      const [api] = podSpec(find(renders.required(), 'Deployment', 'zonewise-api')).containers;
      expect(api!.startupProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(api!.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(api!.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' });
    });

    describe("the worker's probe, run as the kubelet runs it", () => {
      const dir = mkdtempSync(join(tmpdir(), 'zw-heartbeat-'));
      afterAll(() => rmSync(dir, { recursive: true, force: true }));
      const probe = (values: unknown) => {
        const [worker] = podSpec(find(render(values), 'Deployment', 'zonewise-worker')).containers;
        expect(worker!.startupProbe?.exec?.command).toEqual(worker!.livenessProbe?.exec?.command);
        return worker!.livenessProbe!.exec!.command;
      };
      const run = (command: string[], file: string) => {
        const [shell, ...args] = command.map((part) => part.replace('/tmp/zonewise-worker.alive', file));
        return spawnSync(shell!, args).status;
      };
      const aged = (name: string, minutesAgo: number) => {
        const file = join(dir, name);
        writeFileSync(file, new Date().toISOString());
        const then = new Date(Date.now() - minutesAgo * 60_000);
        utimesSync(file, then, then);
        return file;
      };

      it('passes on a fresh heartbeat, fails on a stale or missing one (three sweep periods, 2 min at least)', () => {
        const defaults = probe(REQUIRED);
        expect(run(defaults, aged('fresh', 0))).toBe(0);
        expect(run(defaults, aged('a-minute', 1))).toBe(0);
        expect(run(defaults, aged('three-minutes', 3))).toBe(1);
        expect(run(defaults, join(dir, 'missing'))).toBe(1);
        // SWEEP_EVERY_MS of 2 minutes: a heartbeat 5 minutes old is still within three periods.
        const slow = probe({ ...REQUIRED, worker: { config: { SWEEP_EVERY_MS: 120000 } } });
        expect(run(slow, aged('five-minutes', 5))).toBe(0);
        expect(run(slow, aged('seven-minutes', 7))).toBe(1);
      });
    });
  });

  describe('the migrations', () => {
    it('run as a pre-install/pre-upgrade hook, after their own Secret, both removed once they succeed', () => {
      const rendered = renders.required();
      const job = find(rendered, 'Job', 'zonewise-migrations')!;
      const secret = find(rendered, 'Secret', 'zonewise-migrations')!;
      for (const hook of [job, secret]) {
        expect(hook.metadata.annotations).toMatchObject({
          'helm.sh/hook': 'pre-install,pre-upgrade',
          'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
        });
      }
      const weight = (manifest: Manifest) => Number(manifest.metadata.annotations!['helm.sh/hook-weight']);
      expect(weight(secret)).toBeLessThan(weight(job));
      const [container] = podSpec(job).containers;
      const env = environmentOf(rendered, container!);
      // What `zonewise migrate` reads (scripts/prisma-migrate.mjs): the database, nothing else.
      expect(Object.keys((secret as unknown as { stringData: object }).stringData)).toEqual(['DATABASE_URL']);
      expect(dbEnvSchema.parse(env).DATABASE_URL).toBe(REQUIRED.secrets.DATABASE_URL);
      expect(
        (job as unknown as { spec: { template: { spec: { restartPolicy: string } } } }).spec.template.spec
          .restartPolicy,
      ).toBe('Never');
    });

    it('migrations.enabled=false renders no hook', () => {
      const rendered = render({ ...REQUIRED, migrations: { enabled: false } });
      expect(rendered.filter((entry) => entry.manifest.metadata.annotations?.['helm.sh/hook'])).toEqual([]);
    });
  });

  describe.skipIf(!existsSync(PROMTOOL))('the PrometheusRule', () => {
    it("holds deploy/prometheus/alerts.yml's groups, which promtool checks and unit-tests as rendered", () => {
      const rule = find(renders.everything(), 'PrometheusRule', 'zonewise') as unknown as {
        spec: { groups: unknown[] };
      };
      const source = parse(readFileSync(join(ROOT, 'deploy', 'prometheus', 'alerts.yml'), 'utf8')) as {
        groups: unknown[];
      };
      expect(rule.spec.groups).toEqual(source.groups);
      const dir = mkdtempSync(join(tmpdir(), 'zw-rule-'));
      try {
        writeFileSync(join(dir, 'alerts.yml'), stringify({ groups: rule.spec.groups }));
        copyFileSync(join(ROOT, 'deploy', 'prometheus', 'alerts.test.yml'), join(dir, 'alerts.test.yml'));
        const check = spawnSync(PROMTOOL, ['check', 'rules', join(dir, 'alerts.yml')], { encoding: 'utf8' });
        expect(check.stdout + check.stderr).toMatch(/SUCCESS: \d+ rules found/);
        const test = spawnSync(PROMTOOL, ['test', 'rules', 'alerts.test.yml'], { cwd: dir, encoding: 'utf8' });
        expect(test.stdout + test.stderr).toContain('SUCCESS');
        expect(test.status).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('deploy/prometheus/alerts.yml is a link to the chart file: one set of rules', () => {
      const chartRules = readFileSync(join(CHART, 'files', 'prometheus', 'alerts.yml'), 'utf8');
      expect(readFileSync(join(ROOT, 'deploy', 'prometheus', 'alerts.yml'), 'utf8')).toBe(chartRules);
    });
  });

  it('renders NOTES.txt on install (client-side dry run): how to check it and where the admin commands are', () => {
    const run = runHelm(
      ['install', 'zonewise', CHART, '--namespace', 'zonewise', '--dry-run=client', '--kubeconfig', '/dev/null'],
      REQUIRED,
    );
    expect(run.status, run.stderr).toBe(0);
    const notes = run.stdout.slice(run.stdout.indexOf('NOTES:'));
    expect(notes).toContain('kubectl -n zonewise rollout status deploy/zonewise-api');
    expect(notes).toContain('on CPU (no KEDA here');
    expect(notes).toContain('exec deploy/zonewise-api -- zonewise admin create-cluster');
  });

  it.each([
    [
      'no image repository',
      { ...REQUIRED, image: { repository: '' } },
      /set image\.repository \(and image\.tag\): no public zonewise image exists/,
    ],
    [
      'no database',
      { ...REQUIRED, secrets: { REDIS_URL: REQUIRED.secrets.REDIS_URL } },
      /set secrets\.DATABASE_URL .* or existingSecret/,
    ],
    [
      'no Redis',
      { ...REQUIRED, secrets: { DATABASE_URL: REQUIRED.secrets.DATABASE_URL } },
      /set secrets\.REDIS_URL .* or existingSecret/,
    ],
    [
      'both an existing Secret and chart secrets',
      { ...REQUIRED, existingSecret: 'mine' },
      /existingSecret is set, so the chart makes no Secret of its own: move DATABASE_URL, REDIS_URL into mine/,
    ],
    [
      'more minimum than maximum replicas',
      { ...REQUIRED, worker: { autoscaling: { minReplicas: 5, maxReplicas: 2 } } },
      /worker\.autoscaling\.minReplicas \(5\) is above worker\.autoscaling\.maxReplicas \(2\)/,
    ],
    [
      'an API autoscaler without a CPU request',
      { ...REQUIRED, api: { resources: { requests: { cpu: null, memory: '1Gi' } } } },
      /set api\.resources\.requests\.cpu: the API's autoscaler targets a share of it/,
    ],
    [
      'a worker CPU autoscaler without a CPU request',
      { ...REQUIRED, worker: { autoscaling: { keda: false }, resources: { requests: { cpu: null, memory: '1Gi' } } } },
      /set worker\.resources\.requests\.cpu: without KEDA the worker's autoscaler targets a share of it/,
    ],
    [
      'KEDA with an existing Secret and no Redis address',
      { ...EXISTING_SECRET, worker: { autoscaling: { keda: true } } },
      /set worker\.autoscaling\.redis\.address .*with existingSecret the chart cannot read REDIS_URL/,
    ],
    [
      'a disruption budget no drain could meet',
      { ...REQUIRED, api: { podDisruptionBudget: { minAvailable: 2 } } },
      /api\.podDisruptionBudget\.minAvailable \(2\) must be below api\.autoscaling\.minReplicas \(2\)/,
    ],
    [
      'a disruption budget no drain could meet (fixed replicas)',
      { ...REQUIRED, api: { replicas: 1, autoscaling: { enabled: false }, podDisruptionBudget: { minAvailable: 1 } } },
      /api\.podDisruptionBudget\.minAvailable \(1\) must be below api\.replicas \(1\)/,
    ],
    [
      'the metrics port on the API port',
      { ...REQUIRED, api: { port: 9464 } },
      /api\.metricsPort \(9464\) must differ from api\.port/,
    ],
    [
      'an Ingress without hosts',
      { ...REQUIRED, api: { ingress: { enabled: true } } },
      /api\.ingress\.enabled needs at least one entry/,
    ],
    [
      'a Redis URL KEDA cannot be told',
      { ...REQUIRED, secrets: { ...REQUIRED.secrets, REDIS_URL: 'redis://user:p%C3%A4ss@redis:6379' } },
      /REDIS_URL's user or password holds encoded characters outside printable ASCII/,
    ],
  ])('refuses to render with %s, saying what to set', (_, values, message) => {
    expect(renderError(values, ['--api-versions', KEDA_API])).toMatch(message);
  });

  it.each([
    [
      'an unknown setting',
      { config: { WORKER_CONCURENCY: 4 } },
      "additional properties 'WORKER_CONCURENCY' not allowed",
    ],
    [
      'a credential as plain config',
      { config: { DATABASE_URL: 'postgresql://x' } },
      "additional properties 'DATABASE_URL' not allowed",
    ],
    [
      'a worker setting for the API',
      { api: { config: { WORKER_CONCURRENCY: 4 } } },
      "additional properties 'WORKER_CONCURRENCY' not allowed",
    ],
    [
      'a setting the chart makes itself',
      { api: { config: { PORT: 8080 } } },
      "additional properties 'PORT' not allowed",
    ],
    [
      'a database URL that is not PostgreSQL',
      { secrets: { ...REQUIRED.secrets, DATABASE_URL: 'mysql://x' } },
      "at '/secrets/DATABASE_URL'",
    ],
    ['no worker at all', { worker: { autoscaling: { minReplicas: 0 } } }, "at '/worker/autoscaling/minReplicas'"],
    ['an unknown KEDA mode', { worker: { autoscaling: { keda: 'yes' } } }, "at '/worker/autoscaling/keda'"],
    [
      'a Redis address without a port',
      { worker: { autoscaling: { redis: { address: 'redis.example.com' } } } },
      "at '/worker/autoscaling/redis/address'",
    ],
  ])('values.schema.json refuses %s, naming it', (_, override, message) => {
    expect(renderError({ ...REQUIRED, ...override })).toContain(message);
  });
});
