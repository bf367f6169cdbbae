import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PROMETHEUS_BINARY, prometheusMissing, startPrometheus } from '../support/prometheus.js';
import {
  apiClient,
  createCluster,
  createTenant,
  pushSnapshot,
  type QueryStack,
  startQueryStack,
  waitProcessed,
} from '../support/query-api.js';
import { fleet } from '../support/snapshots.js';
import { waitFor } from '../support/wait.js';

/**
 * The alert rules and the Grafana dashboard under deploy/: the rules parse and pass their unit tests
 * (promtool, from Debian's prometheus package), and every metric either names is one the real API
 * serves at /metrics.
 */
const ROOT = join(__dirname, '..', '..');
const RULES = join(ROOT, 'deploy', 'prometheus', 'alerts.yml');
const RULE_TESTS = join(ROOT, 'deploy', 'prometheus', 'alerts.test.yml');
const DASHBOARD = join(ROOT, 'deploy', 'grafana', 'zonewise.json');
const PROMTOOL = join(dirname(PROMETHEUS_BINARY), 'promtool');
const promtoolMissing = existsSync(PROMTOOL)
  ? null
  : `${PROMTOOL} is missing (scripts/ensure-services.sh installs prometheus): alert rule checks skipped`;
if (promtoolMissing) console.warn(promtoolMissing);

const METRIC = /\bzonewise_[a-z0-9_]+/g;

function ruleExpressions(): { alert: string; expr: string }[] {
  const rules = parse(readFileSync(RULES, 'utf8')) as { groups: { rules: { alert: string; expr: string }[] }[] };
  return rules.groups.flatMap((group) => group.rules);
}

interface Panel {
  title: string;
  targets?: { expr: string }[];
  panels?: Panel[];
}

function dashboardExpressions(): { title: string; expr: string }[] {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Panel[] };
  const all = (panels: Panel[]): Panel[] => panels.flatMap((panel) => [panel, ...all(panel.panels ?? [])]);
  return all(dashboard.panels).flatMap((panel) =>
    (panel.targets ?? []).map(({ expr }) => ({ title: panel.title, expr })),
  );
}

/** Metric names a Prometheus text exposition declares (histograms also as their _bucket, _sum, _count series). */
function exportedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
  }
  return names;
}

describe.skipIf(promtoolMissing !== null)('deploy/prometheus/alerts.yml', () => {
  it('passes promtool check rules', () => {
    const run = spawnSync(PROMTOOL, ['check', 'rules', RULES], { encoding: 'utf8' });
    expect(run.stdout + run.stderr).toMatch(/SUCCESS: \d+ rules found/);
    expect(run.status).toBe(0);
  });

  it('passes its unit tests: each alert fires on the series it is for, and only then', () => {
    const output = execFileSync(PROMTOOL, ['test', 'rules', RULE_TESTS], {
      cwd: dirname(RULE_TESTS),
      encoding: 'utf8',
    });
    expect(output).toContain('SUCCESS');
    const tested = new Set([...readFileSync(RULE_TESTS, 'utf8').matchAll(/alertname: (\w+)/g)].map(([, name]) => name));
    expect([...tested].sort()).toEqual(
      ruleExpressions()
        .map((rule) => rule.alert)
        .sort(),
    );
  });
});

describe('the rules and the dashboard name only metrics the API serves', () => {
  let stack: QueryStack;
  let exported: Set<string>;

  beforeAll(async () => {
    stack = await startQueryStack('observability');
    // One analysed snapshot, so the job counters and histograms have series too.
    const tenant = await createTenant(stack.prisma, 'acme');
    const cluster = await createCluster(stack.prisma, tenant, 'prod');
    await waitProcessed(stack.prisma, [await pushSnapshot(stack.url, cluster.token, fleet(4, 3))]);
    await apiClient(stack.url, tenant.readKey).get('/v1/fleet');
    const metrics = await apiClient(stack.metricsUrl, null).get<string>('/metrics');
    expect(metrics.status).toBe(200);
    exported = exportedNames(metrics.body);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it.skipIf(prometheusMissing() !== null)(
    'a real Prometheus scrapes the metrics port (METRICS_PORT); the API port serves no /metrics',
    async () => {
      const prometheus = await startPrometheus([new URL(stack.metricsUrl).host]);
      try {
        await waitFor(
          'Prometheus to scrape the API',
          async () => (await prometheus.query('up{job="zonewise"} == 1')).length === 1,
          60_000,
        );
        const clusters = await prometheus.query('sum(zonewise_clusters)');
        expect(Number(clusters[0]?.value[1])).toBeGreaterThanOrEqual(1);
      } finally {
        await prometheus.stop();
      }
      expect((await apiClient(stack.url, null).get('/metrics')).status).toBe(404);
    },
    120_000,
  );

  it('the API serves the business figures the rules and dashboard are built on', () => {
    for (const name of ['zonewise_clusters', 'zonewise_services', 'zonewise_cross_zone_monthly_cost_usd']) {
      expect(exported).toContain(name);
    }
  });

  it('every metric in the alert rules', () => {
    const rules = ruleExpressions();
    expect(rules.length).toBeGreaterThan(0);
    for (const { alert, expr } of rules) {
      const names = expr.match(METRIC) ?? [];
      expect(names.length, alert).toBeGreaterThan(0);
      expect(
        names.filter((name) => !exported.has(name)),
        alert,
      ).toEqual([]);
    }
  });

  it('every metric in the Grafana dashboard', () => {
    const queries = dashboardExpressions();
    expect(queries.length).toBeGreaterThan(5);
    for (const { title, expr } of queries) {
      const names = expr.match(METRIC) ?? [];
      expect(names.length, title).toBeGreaterThan(0);
      expect(
        names.filter((name) => !exported.has(name)),
        title,
      ).toEqual([]);
    }
  });
});
