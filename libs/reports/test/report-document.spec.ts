import { describe, expect, it } from 'vitest';
import { moneyReplacer, roundCents } from '@zw/core';
import { apportionCents, parseCsv, renderCsv, CSV_COLUMNS } from '../src/csv.js';
import { renderHtml } from '../src/html.js';
import { missedReasonOf } from '../src/missed-reasons.js';
import { buildReportDocument, FLAPPING_MIN_CHANGES } from '../src/report-document.js';
import { reportDocumentJson } from '../src/report-json.js';
import type { FixRow, ReportInput, ServicePeriodRow } from '../src/report-input.js';
import { trendBuckets } from '../src/trend-buckets.js';
import { webhookPayload } from '../src/webhook.js';

const start = new Date('2026-11-19T00:00:00Z');
const end = new Date('2026-11-20T00:00:00Z');

function row(overrides: Partial<ServicePeriodRow>): ServicePeriodRow {
  return {
    clusterId: 'c1',
    namespace: 'shop',
    name: 'cart',
    routing: 'None',
    hintState: 'none',
    hintReason: null,
    trafficSource: 'annotation',
    estimated: false,
    fullyMeasured: false,
    measuredCrossZone: null,
    modelCrossZone: 0.6,
    honoursHints: true,
    missedBasis: null,
    missedReason: null,
    months: 1 / 30,
    trafficGb: 10,
    withoutHintsGb: 6,
    withoutHintsCost: 0.12,
    withHintsGb: 6,
    withHintsCost: 0.12,
    missedGb: 0,
    missedCost: 0,
    ...overrides,
  };
}

function input(services: ServicePeriodRow[], extra: Partial<ReportInput> = {}): ReportInput {
  const buckets = trendBuckets({ start, end });
  return {
    meta: {
      id: 'r1',
      schedule: { id: 's1', name: 'Daily <FinOps>', cadence: 'daily', cron: '0 0 * * *', timeZone: 'UTC' },
      period: { start, end },
      partial: false,
      trigger: 'schedule',
      generatedAt: new Date('2026-11-20T00:00:05Z'),
    },
    scope: {
      kind: 'fleet',
      clusters: [
        {
          id: 'c1',
          name: 'prod',
          cloud: 'aws',
          region: 'us-east-1',
          pricing: { pricePerGb: 0.02, source: 'provider-region', note: 'AWS' },
        },
        {
          id: 'c2',
          name: 'edge',
          cloud: 'other',
          region: null,
          pricing: { pricePerGb: 0.02, source: 'unknown-cloud-default', note: 'no cloud given: priced like AWS' },
        },
      ],
      missingClusterIds: [],
    },
    coverage: [
      {
        clusterId: 'c1',
        snapshots: 3,
        firstCapturedAt: new Date('2026-11-19T06:00:00Z'),
        lastCapturedAt: new Date('2026-11-19T18:00:00Z'),
        historyBeforePeriod: true,
      },
    ],
    services,
    transitions: [],
    trend: { buckets, rows: [], states: [] },
    documents: [],
    ...extra,
  };
}

describe('buildReportDocument', () => {
  it('merges a Service’s rows, splits missed savings by reason and keeps the exact and at-stake figures apart', () => {
    const document = buildReportDocument(
      input([
        // cart: not enabled for part of the day, then refused for too few endpoints.
        row({ missedBasis: 'preview', months: 0.02, missedGb: 2, missedCost: 0.04 }),
        row({
          missedBasis: 'blocked',
          missedReason: 'Insufficient number of endpoints (2 endpoints, 3 zones)',
          months: 0.0133,
          missedGb: 1,
          missedCost: 0.02,
        }),
        row({
          name: 'api',
          routing: 'Auto',
          hintState: 'populated',
          withoutHintsGb: 8,
          withoutHintsCost: 0.16,
          withHintsGb: 2,
          withHintsCost: 0.04,
        }),
        row({
          clusterId: 'c2',
          name: 'db',
          routing: 'Auto',
          hintState: 'removed',
          trafficSource: 'default-per-endpoint',
          estimated: true,
          missedBasis: 'blocked',
          missedReason: 'Insufficient Node information: allocatable CPU or zone not specified on one or more nodes',
          missedGb: 5,
          missedCost: 0.1,
        }),
      ]),
    );
    expect(document.totals.services).toBe(3);
    expect(document.totals.missedSavings).toEqual({ crossZoneGb: 2, cost: 0.04 });
    expect(document.totals.blockedAtStake.crossZoneGb).toBeCloseTo(6);
    expect(document.totals.opportunities).toBe(1);
    expect(document.totals.realizedSavings.crossZoneGb).toBeCloseTo(6);
    expect(document.totals.estimate).toBe(true);
    const reasons = Object.fromEntries(
      document.missedSavings.byReason.map((entry) => [entry.reason, [entry.services, entry.crossZoneGb, entry.basis]]),
    );
    expect(reasons).toEqual({
      'not-enabled': [1, 2, 'enable-preview'],
      // cart's money counts under both of its reasons; cart itself under the one it spent longest in.
      'too-few-endpoints': [0, 1, 'at-stake'],
      'overload-threshold': [0, 0, 'at-stake'],
      'node-info': [1, 5, 'at-stake'],
      other: [0, 0, 'at-stake'],
    });
    const cart = document.services.find((line) => line.name === 'cart')!;
    expect(cart.months).toBeCloseTo(0.0333);
    expect(cart.withHints.crossZoneGb).toBe(12);
    expect(cart.missedSavings.crossZoneGb).toBe(3);
    expect(cart.missedReason).toBe('not-enabled'); // the reason it spent longest in
    expect(document.services.map((line) => `${line.cluster.name}/${line.name}`)).toEqual([
      'edge/db',
      'prod/api',
      'prod/cart',
    ]);
    expect(document.topOpportunities.map((line) => line.name)).toEqual(['cart']);
    expect(document.clusters.map((cluster) => [cluster.name, cluster.totals.services])).toEqual([
      ['prod', 2],
      ['edge', 1],
    ]);
    expect(document.notes).toEqual(
      expect.arrayContaining([
        'edge: no analysed snapshot covers this period',
        '1 Service(s) have no declared traffic: their volume is the per-endpoint default, an estimate',
        'edge: no cloud given: priced like AWS',
      ]),
    );
  });

  it('counts hint-state changes and lists the flapping Services', () => {
    const document = buildReportDocument(
      input([row({ name: 'flappy', routing: 'Auto' }), row({ name: 'steady', routing: 'Auto' })], {
        transitions: [
          { clusterId: 'c1', namespace: 'shop', name: 'flappy', from: 'populated', to: 'removed', count: 2 },
          { clusterId: 'c1', namespace: 'shop', name: 'flappy', from: 'removed', to: 'populated', count: 1 },
          { clusterId: 'c1', namespace: 'shop', name: 'steady', from: 'none', to: 'populated', count: 1 },
        ],
      }),
    );
    expect(document.hintStates).toMatchObject({
      changes: 4,
      servicesChanged: 2,
      flappingThreshold: FLAPPING_MIN_CHANGES,
    });
    expect(document.hintStates.flapping).toEqual([
      { cluster: { id: 'c1', name: 'prod' }, namespace: 'shop', name: 'flappy', changes: 3, hintState: 'none' },
    ]);
    expect(document.hintStates.transitions[0]).toEqual({ from: 'populated', to: 'removed', count: 2 });
  });

  it('lists zones past the overload threshold and Service CIDRs with risks, worst first', () => {
    const capturedAt = new Date('2026-11-19T18:00:00Z');
    const document = buildReportDocument(
      input([], {
        documents: [
          {
            clusterId: 'c1',
            capturedAt,
            nodeInfoSufficient: true,
            nodeInfoReason: null,
            zoneStats: [
              {
                name: 'zone-a',
                cpuShare: 0.5,
                expectedOverload: { max: 0.1, maxService: 'a/x', servicesAboveThreshold: 0 },
              },
              {
                name: 'zone-b',
                cpuShare: 0.25,
                expectedOverload: { max: 0.33, maxService: 'a/y', servicesAboveThreshold: 2 },
              },
            ],
            serviceCidrs: [
              {
                cidr: '10.96.0.0/12',
                family: 'IPv4',
                utilization: 0.01,
                allocated: {},
                free: {},
                risks: [],
                conflicts: [],
              },
              {
                cidr: '10.100.0.0/24',
                family: 'IPv4',
                utilization: 0.9,
                allocated: {},
                free: {},
                risks: [],
                conflicts: [],
              },
            ],
          },
        ],
      }),
    );
    expect(document.zonesAtRisk).toEqual([
      expect.objectContaining({
        zone: 'zone-b',
        maxExpectedOverload: 0.33,
        servicesAboveThreshold: 2,
        asOf: capturedAt.toISOString(),
      }),
    ]);
    expect(document.serviceCidrRisks.map((risk) => risk.cidr)).toEqual(['10.100.0.0/24']);
  });
});

describe('missedReasonOf', () => {
  it('maps the controller’s messages to the report’s reasons', () => {
    expect(missedReasonOf('Insufficient number of endpoints (1 endpoints, 3 zones)')).toBe('too-few-endpoints');
    expect(
      missedReasonOf(
        'Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (4 endpoints, 3 zones)',
      ),
    ).toBe('overload-threshold');
    expect(missedReasonOf('Nodes only ready in one zone')).toBe('node-info');
    expect(missedReasonOf('One or more endpoints do not have a zone specified')).toBe('other');
    expect(missedReasonOf(null)).toBe('other');
  });
});

describe('renderings', () => {
  const document = buildReportDocument(
    input([
      row({ name: '=cmd|calc', hintReason: 'quote " and, comma' }),
      row({ name: 'api', routing: 'Auto', hintState: 'populated', withHintsCost: -0.5 }),
    ]),
  );

  it('CSV: a header and one RFC 4180 row per Service per cluster; formula-like text is defused, numbers are not', () => {
    const csv = renderCsv(document);
    expect(csv.endsWith('\r\n')).toBe(true);
    const [header, ...rows] = parseCsv(csv);
    expect(header).toEqual([...CSV_COLUMNS]);
    expect(rows).toHaveLength(2);
    const byName = Object.fromEntries(rows.map((fields) => [fields[header.indexOf('service')], fields]));
    expect(byName["'=cmd|calc"][header.indexOf('hint_reason')]).toBe('quote " and, comma');
    expect(byName.api[header.indexOf('cost_with_hints_usd')]).toBe('-0.5');
    expect(csv).toContain('"quote "" and, comma"');
  });

  it('HTML: one self-contained page, every user text escaped, charts inline', () => {
    const html = renderHtml(document);
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain('Daily &lt;FinOps&gt;');
    expect(html).not.toContain('<FinOps>');
    expect(html).not.toMatch(/<script|<link|<img|\b(src|href)=/i);
    expect(html.match(/<svg /g)?.length).toBeGreaterThanOrEqual(4);
  });
});

describe('the report agrees with itself', () => {
  // Costs of a third of a cent each: rounded one by one, 7 rows of $0.0033 would add up to $0 against a
  // headline of $0.02; a Service that changed reasons during the period.
  const rows = [
    ...Array.from({ length: 7 }, (_, index) =>
      row({ name: `tiny-${index}`, withoutHintsCost: 0.00334, withHintsCost: 0.00333 }),
    ),
    row({ name: 'mover', missedBasis: 'preview', months: 0.02, missedGb: 2, missedCost: 0.04 }),
    row({
      name: 'mover',
      missedBasis: 'blocked',
      missedReason: 'Insufficient number of endpoints (2 endpoints, 3 zones)',
      months: 0.0133,
      missedGb: 1,
      missedCost: 0.02,
    }),
  ];
  const document = buildReportDocument(input(rows));
  const [header, ...csvRows] = parseCsv(renderCsv(document));
  const column = (name: string) => csvRows.map((fields) => fields[header.indexOf(name)]);
  const cents = (name: string) => column(name).reduce((sum, cell) => sum + Math.round(Number(cell) * 100), 0);

  it("CSV: each money column's cents add up to the document's total, rounded once", () => {
    expect(cents('cost_without_hints_usd')).toBe(Math.round(roundCents(document.totals.withoutHints.cost) * 100));
    expect(cents('cost_with_hints_usd')).toBe(Math.round(roundCents(document.totals.withHints.cost) * 100));
    expect(cents('realized_savings_usd')).toBe(Math.round(roundCents(document.totals.realizedSavings.cost) * 100));
    const missed = document.totals.missedSavings.cost + document.totals.blockedAtStake.cost;
    expect(cents('missed_savings_usd')).toBe(Math.round(roundCents(missed) * 100));
  });

  it('Services per reason: the CSV rows with that missed_reason, in the JSON and the HTML', () => {
    const reasons = column('missed_reason');
    for (const entry of document.missedSavings.byReason) {
      expect(entry.services, entry.reason).toBe(reasons.filter((reason) => reason === entry.reason).length);
    }
    const html = renderHtml(document);
    expect(html).toContain('1 Service mainly');
    expect(html).not.toMatch(/\(so far\)\s*\(so far\)/);
  });

  it('apportions cents by largest remainder, whatever the floating point', () => {
    expect(apportionCents([0.29, 0.004, 0.004])).toEqual([29, 1, 0]);
    expect(apportionCents([0.1, 0.2])).toEqual([10, 20]);
    expect(apportionCents([-0.5, Number.NaN, 0.333, 0.333, 0.334])).toEqual([-50, null, 33, 33, 34]);
    // Largest remainder first; among equal remainders, the first rows.
    expect(apportionCents([0.005, 0.005, 0.005])).toEqual([1, 1, 0]);
    expect(apportionCents([0.004, 0.006, 0.005, 0.005])).toEqual([0, 1, 1, 0]);
  });

  it('a Service that spent as long in two reasons gets the first in byte order, whatever the rows’ order', () => {
    const tied = (name: string, missedReason: string) => [
      row({ name, missedBasis: 'blocked', missedReason, months: 0.01, missedGb: 1, missedCost: 0.02 }),
      row({ name, missedBasis: 'preview', months: 0.01, missedGb: 1, missedCost: 0.02 }),
    ];
    const tiedDocument = buildReportDocument(
      input([
        ...tied('a', 'Insufficient number of endpoints (2 endpoints, 3 zones)'),
        ...tied('b', 'Nodes only ready in one zone'),
      ]),
    );
    expect(tiedDocument.services.map((line) => [line.name, line.missedReason])).toEqual([
      ['a', 'not-enabled'],
      ['b', 'node-info'],
    ]);
  });
});

describe('CSV cells and rows', () => {
  const cellsOf = (services: ServicePeriodRow[]) => {
    const [header, ...rows] = parseCsv(renderCsv(buildReportDocument(input(services))));
    return rows.map((fields) => Object.fromEntries(header.map((name, index) => [name, fields[index]])));
  };

  it('numbers: 9 significant digits, written as JavaScript writes the number they make', () => {
    const [first, second] = cellsOf([
      row({
        name: 'a',
        months: 1 / 3,
        trafficGb: 1234567891.5,
        modelCrossZone: 0.1 + 0.2,
        withoutHintsGb: 0.0000012345678912,
        withHintsGb: 2e-7,
        missedGb: 999999999.6,
      }),
      row({ name: 'b', months: 12, trafficGb: 1e21, withoutHintsGb: 123.45, withHintsGb: 150.00000000000003 }),
    ]);
    expect(first).toMatchObject({
      service_months: '0.333333333',
      traffic_gb: '1234567890',
      model_cross_zone: '0.3',
      cross_zone_gb_without_hints: '0.00000123456789',
      cross_zone_gb_with_hints: '2e-7',
      missed_savings_gb: '1000000000',
    });
    expect(second).toMatchObject({
      service_months: '12',
      traffic_gb: '1e+21',
      cross_zone_gb_without_hints: '123.45',
      cross_zone_gb_with_hints: '150',
      realized_savings_gb: '-26.55',
    });
  });

  it('text: every formula-like start defused, quotes only around a quote, comma or line break', () => {
    const names = ['-x', '+x', '@x', '\tx', '\rx', 'a\nb', 'plain'];
    const csv = renderCsv(buildReportDocument(input(names.map((name) => row({ name })))));
    expect(cellsOf(names.map((name) => row({ name }))).map((cells) => cells.service)).toEqual([
      "'\tx",
      "'\rx",
      "'+x",
      "'-x",
      "'@x",
      'a\nb',
      'plain',
    ]);
    expect(csv).toContain(`,"'\rx",`);
    expect(csv).toContain(`,"a\nb",`);
    expect(csv).toContain(`,'\tx,`);
  });

  it('rows past the first thousand: each Service once, in order, every money column adding up', () => {
    const services = Array.from({ length: 2345 }, (_, index) =>
      row({ name: `svc-${String(index).padStart(4, '0')}`, withHintsCost: 0.00337 * (index % 7) }),
    );
    const document = buildReportDocument(input(services));
    const cells = cellsOf(services);
    expect(cells.map((fields) => fields.service)).toEqual(services.map((service) => service.name));
    expect(cells.every((fields) => Object.keys(fields).length === CSV_COLUMNS.length)).toBe(true);
    const cents = cells.reduce((sum, fields) => sum + Math.round(Number(fields.cost_with_hints_usd) * 100), 0);
    expect(cents).toBe(Math.round(roundCents(document.totals.withHints.cost) * 100));
  });
});

describe('top fixes', () => {
  const fix = (name: string, savedCost: number, overrides: Partial<FixRow> = {}): FixRow => ({
    clusterId: 'c1',
    namespace: 'shop',
    name,
    kind: 'replicas',
    summary: `Add 2 ready endpoints to ${name}`,
    resultingState: 'populated',
    crossZoneAfter: 0,
    overloadAboveThreshold: false,
    patch: `kubectl scale deployment/${name} -n shop --replicas=6 # <b>`,
    trafficGb: 200,
    trafficSource: 'annotation',
    savedGb: savedCost * 50,
    savedCost,
    alternatives: 1,
    ...overrides,
  });
  const fixes = [
    fix('cart', 2.5),
    fix('api', 1.25, {
      kind: 'trafficDistribution',
      overloadAboveThreshold: true,
      trafficSource: 'default-per-endpoint',
    }),
  ];
  const document = buildReportDocument(
    input([row({ name: 'cart' }), row({ name: 'api' }), row({ name: 'db' })], { fixes }),
  );

  it('JSON: the ranked fixes with what they change, lead to and save; each Service line carries its best fix', () => {
    expect(document.topFixes.map((line) => [line.rank, line.name, line.monthlySavings.cost])).toEqual([
      [1, 'cart', 2.5],
      [2, 'api', 1.25],
    ]);
    expect(document.topFixes[1]).toMatchObject({
      cluster: { id: 'c1', name: 'prod' },
      kind: 'trafficDistribution',
      overloadAboveThreshold: true,
      estimate: true,
      alternatives: 1,
    });
    const byName = Object.fromEntries(document.services.map((line) => [line.name, line]));
    expect(byName.cart.bestFix).toEqual({
      rank: 1,
      kind: 'replicas',
      summary: 'Add 2 ready endpoints to cart',
      resultingState: 'populated',
      monthlySavings: { crossZoneGb: 125, cost: 2.5 },
    });
    expect(byName.db.bestFix).toBeNull();
  });

  it('CSV: the fix columns of each Service; empty for a Service without a fix', () => {
    const [header, ...rows] = parseCsv(renderCsv(document));
    const byName = Object.fromEntries(rows.map((fields) => [fields[header.indexOf('service')], fields]));
    expect(byName.cart[header.indexOf('fix_rank')]).toBe('1');
    expect(byName.api[header.indexOf('fix_kind')]).toBe('trafficDistribution');
    expect(byName.cart[header.indexOf('fix_savings_usd_per_month')]).toBe('2.5');
    expect(byName.cart[header.indexOf('fix_savings_gb_per_month')]).toBe('125');
    expect(byName.db[header.indexOf('fix_rank')]).toBe('');
  });

  it('HTML: a "Top fixes" section with each fix and its commands, escaped', () => {
    const html = renderHtml(document);
    expect(html).toContain('<h2>Top fixes</h2>');
    expect(html).toContain('kubectl scale deployment/cart -n shop --replicas=6 # &lt;b&gt;');
    expect(html).toContain('overload above 20 %');
    const empty = renderHtml(buildReportDocument(input([row({})])));
    expect(empty).toContain('No Service needs a fix');
  });
});

describe('measured dollars', () => {
  // contradicting: populated hints, the model routes 5 % across zones, 40 % measured; agreeing: measured
  // close to the model; modelled: no traffic source.
  const document = buildReportDocument(
    input([
      row({
        name: 'contradicting',
        routing: 'Auto',
        hintState: 'populated',
        trafficSource: 'measured',
        fullyMeasured: true,
        measuredCrossZone: 0.4,
        modelCrossZone: 0.05,
        withoutHintsGb: 6,
        withoutHintsCost: 0.12,
        withHintsGb: 4,
        withHintsCost: 0.08,
      }),
      row({
        name: 'agreeing',
        routing: 'Auto',
        hintState: 'populated',
        trafficSource: 'measured',
        fullyMeasured: true,
        measuredCrossZone: 0.1,
        modelCrossZone: 0.05,
        withHintsGb: 1,
        withHintsCost: 0.02,
      }),
      row({
        name: 'opportunity',
        trafficSource: 'measured',
        fullyMeasured: true,
        measuredCrossZone: 0.5,
        modelCrossZone: 0.6,
        withHintsGb: 5,
        withHintsCost: 0.1,
        missedBasis: 'preview',
        missedGb: 3,
        missedCost: 0.06,
      }),
      row({ name: 'modelled' }),
      row({
        clusterId: 'c2',
        name: 'ignored',
        routing: 'Auto',
        hintState: 'populated',
        honoursHints: false,
        trafficSource: 'measured',
        fullyMeasured: true,
        measuredCrossZone: 0.6,
        modelCrossZone: 0.6,
      }),
    ]),
  );

  it('JSON: how much of each total is measured, per cluster too; the contradiction flagged on that Service only', () => {
    const { measured } = document.totals;
    expect(measured.services).toBe(4);
    expect(measured.withHints.crossZoneGb).toBeCloseTo(4 + 1 + 5 + 6, 9);
    expect(measured.withHints.cost).toBeCloseTo(0.08 + 0.02 + 0.1 + 0.12, 9);
    expect(measured.realizedSavings.cost).toBeCloseTo(0.12 - 0.08 + (0.12 - 0.02) + (0.12 - 0.1), 9);
    expect(measured.missedSavings.cost).toBeCloseTo(0.06, 9);
    expect(measured.withHintsCostShare).toBeCloseTo(0.32 / (0.32 + 0.12), 9);
    expect(document.currency).toBe('USD');
    const prod = document.clusters.find((cluster) => cluster.id === 'c1')!;
    expect(prod.totals.measured.services).toBe(3);
    expect(prod.totals.measured.withHintsCostShare).toBeCloseTo(0.2 / 0.32, 9);

    const byName = Object.fromEntries(document.services.map((line) => [line.name, line]));
    expect(byName.contradicting).toMatchObject({
      crossZoneSource: 'measured',
      fullyMeasured: true,
      modelCrossZone: 0.05,
    });
    expect(byName.contradicting.contradiction).toMatchObject({ modelCrossZone: 0.05, measuredCrossZone: 0.4 });
    expect(byName.contradicting.contradiction!.reason).toMatch(/hints are populated/);
    // Within the margin; no hints to contradict; a data path that ignores hints is not a contradiction.
    for (const name of ['agreeing', 'opportunity', 'modelled', 'ignored'])
      expect(byName[name].contradiction, name).toBeNull();
    expect(byName.modelled).toMatchObject({ crossZoneSource: 'model', measuredCrossZone: null, fullyMeasured: false });
    expect(document.totals.contradictions).toBe(1);
    expect(document.contradictions.map((line) => line.name)).toEqual(['contradicting']);
    expect(document.contradictions[0].withHints).toEqual({ crossZoneGb: 4, cost: 0.08 });
    expect(document.notes.join('\n')).toMatch(/0\.32 USD of the 0\.44 USD as routed \(72\.7%\)/);
  });

  it('CSV and HTML say which figures are measured, with the currency, and flag the contradiction', () => {
    const [header, ...rows] = parseCsv(renderCsv(document));
    const byName = Object.fromEntries(rows.map((fields) => [fields[header.indexOf('service')], fields]));
    const cell = (name: string, column: string) => byName[name][header.indexOf(column)];
    expect(cell('contradicting', 'cross_zone_source')).toBe('measured');
    expect(cell('contradicting', 'measured_cross_zone')).toBe('0.4');
    expect(cell('contradicting', 'model_cross_zone')).toBe('0.05');
    expect(cell('contradicting', 'fully_measured')).toBe('true');
    expect(cell('contradicting', 'contradiction')).toMatch(/hints are populated/);
    expect(cell('modelled', 'cross_zone_source')).toBe('model');
    expect(cell('modelled', 'measured_cross_zone')).toBe('');
    expect(cell('agreeing', 'contradiction')).toBe('');

    const html = renderHtml(document);
    expect(html).toContain('<div class="label">Cost measured</div><div class="value ">$0.32</div>');
    expect(html).toContain('72.7 % of the cross-zone cost, from 4 Services measured; the rest estimated');
    expect(html).toContain('<h2>Measured traffic that contradicts the hints</h2>');
    expect(html).toMatch(/<td>shop\/contradicting<\/td><td class="num">5 %<\/td><td class="num">40 %<\/td>/);
    expect(html).toContain('All amounts in USD.');
    const plain = renderHtml(buildReportDocument(input([row({})])));
    expect(plain).not.toContain('contradicts the hints');
  });
});

describe('HTML escaping', () => {
  const hostile = `<script>alert("x")</script>' onmouseover='x`;
  const document = buildReportDocument(
    input(
      [
        row({
          namespace: hostile,
          name: hostile,
          hintReason: hostile,
          missedBasis: 'preview',
          missedGb: 1,
          missedCost: 0.5,
        }),
      ],
      {
        fixes: [
          {
            clusterId: 'c1',
            namespace: hostile,
            name: hostile,
            kind: 'replicas',
            summary: hostile,
            resultingState: 'populated',
            crossZoneAfter: 0,
            overloadAboveThreshold: false,
            patch: `kubectl scale deployment/${hostile}`,
            trafficGb: 1,
            trafficSource: 'annotation',
            savedGb: 1,
            savedCost: 1,
            alternatives: 0,
          },
        ],
        scope: {
          kind: 'clusters',
          clusters: [
            {
              id: 'c1',
              name: hostile,
              cloud: 'aws',
              region: hostile,
              pricing: { pricePerGb: 0.02, source: 'provider-region', note: hostile },
            },
          ],
          missingClusterIds: [hostile],
        },
      },
    ),
  );
  const html = renderHtml({ ...document, schedule: { ...document.schedule, name: hostile } });

  it('prints names with markup and quotes as text: no element, no attribute from them', () => {
    expect(html).not.toContain('<script');
    expect(html).not.toContain(`' onmouseover='`);
    expect(html).not.toMatch(/<[^>]*\sonmouseover=/);
    const escaped = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=&#39;x';
    // Title, scope, tables, the fix's heading and commands, the missing cluster's note and the chart labels.
    expect(html.split(escaped).length - 1).toBeGreaterThanOrEqual(6);
    expect(html).toContain(`<title>${escaped}: `);
    expect(html).toContain(`<pre>kubectl scale deployment/${escaped}</pre>`);
    // Every element in the page is one the templates wrote.
    const tags = new Set([...html.matchAll(/<([a-zA-Z][a-zA-Z0-9]*)/g)].map((match) => match[1].toLowerCase()));
    for (const tag of tags) {
      expect([
        'html',
        'head',
        'meta',
        'title',
        'style',
        'body',
        'main',
        'h1',
        'h2',
        'h3',
        'p',
        'section',
        'div',
        'svg',
        'desc',
        'text',
        'line',
        'rect',
        'polyline',
        'circle',
        'table',
        'thead',
        'tbody',
        'tr',
        'th',
        'td',
        'pre',
        'code',
        'ul',
        'li',
      ]).toContain(tag);
    }
  });
});

describe('webhook bodies', () => {
  it('attach the stored JSON as it is: the bytes of the document serialised inside the body', () => {
    const document = buildReportDocument(
      input([row({ withHintsCost: 0.123456 }), row({ name: 'checkout "β"', withHintsCost: 1 / 3 })]),
    );
    const documentJson = reportDocumentJson(document);
    const csv = renderCsv(document);
    const html = renderHtml(document);
    const report = { id: 'r1', url: '/v1/reports/r1' };
    const choices: ('json' | 'csv' | 'html')[][] = [['json', 'csv', 'html'], ['csv'], ['json'], []];
    for (const formats of choices) {
      const served = webhookPayload({ deliveryId: 'd1', report, documentJson, formats, csv, html });
      const whole = {
        event: 'report.ready',
        deliveryId: 'd1',
        report: {
          ...report,
          schedule: { id: document.schedule.id, name: document.schedule.name },
          period: document.period,
          trigger: document.trigger,
          generatedAt: document.generatedAt,
          currency: document.currency,
          totals: document.totals,
        },
        attachments: {
          ...(formats.includes('json') ? { json: document } : {}),
          ...(formats.includes('csv') ? { csv } : {}),
          ...(formats.includes('html') ? { html } : {}),
        },
      };
      expect(served, formats.join()).toBe(JSON.stringify(whole, moneyReplacer));
    }
  });
});
