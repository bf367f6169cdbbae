import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crossZonePrice, priceCatalogue } from '../src/savings.js';
import {
  DEFAULT_MONTHLY_GB_PER_ENDPOINT,
  MONTHLY_TRAFFIC_ANNOTATION,
  monthlyTrafficGb,
} from '../src/monthly-traffic.js';
import { describePricingModel } from '../src/pricing-model-description.js';
import { measuredContradiction, missedSavings, serviceCost } from '../src/service-cost.js';
import { deepFreeze } from './fixtures.js';

describe('crossZonePrice: every source of the price', () => {
  it('a cluster override wins over the provider, even 0', () => {
    expect(crossZonePrice({ cloud: 'aws', region: 'us-east-1', overridePerGb: 0.015 })).toEqual({
      pricePerGb: 0.015,
      currency: 'USD',
      source: 'cluster-override',
      note: 'price set for this cluster',
    });
    expect(crossZonePrice({ cloud: 'gcp', overridePerGb: 0 }).pricePerGb).toBe(0);
    expect(crossZonePrice({ cloud: 'gcp', overridePerGb: 0 }).source).toBe('cluster-override');
  });

  it('a bad override is ignored, and the note says so', () => {
    for (const bad of [-0.01, Number.NaN, Number.POSITIVE_INFINITY]) {
      const price = crossZonePrice({ cloud: 'aws', region: 'eu-west-1', overridePerGb: bad });
      expect(price.source).toBe('provider-region');
      expect(price.pricePerGb).toBe(0.02);
      expect(price.note).toContain(`ignored the cluster price ${String(bad)}`);
    }
  });

  it('AWS counts both sides: $0.01 out plus $0.01 in per GB that crosses', () => {
    const price = crossZonePrice({ cloud: 'aws', region: 'us-east-1' });
    expect(price).toMatchObject({ pricePerGb: 0.02, currency: 'USD', source: 'provider-region' });
    expect(price.note).toContain('us-east-1');
    expect(price.note).toContain('$0.01/GB out');
  });

  it('Google Cloud bills the sending side only; Azure does not charge between zones', () => {
    expect(crossZonePrice({ cloud: 'gcp', region: 'europe-west1' })).toMatchObject({
      pricePerGb: 0.01,
      source: 'provider-region',
    });
    expect(crossZonePrice({ cloud: 'azure', region: 'westeurope' })).toMatchObject({
      pricePerGb: 0,
      source: 'provider-region',
    });
  });

  it('cloud names are case-insensitive and the managed-Kubernetes names are accepted', () => {
    expect(crossZonePrice({ cloud: 'GKE', region: 'US-Central1' })).toMatchObject({
      pricePerGb: 0.01,
      source: 'provider-region',
    });
    expect(crossZonePrice({ cloud: ' eks ', region: 'ap-south-1' }).pricePerGb).toBe(0.02);
    expect(crossZonePrice({ cloud: 'AKS', region: 'eastus' }).pricePerGb).toBe(0);
  });

  it("a region missing from the table, or none, gets the provider's standard rate as provider-default", () => {
    const unknownRegion = crossZonePrice({ cloud: 'aws', region: 'xx-moon-1' });
    expect(unknownRegion).toMatchObject({ pricePerGb: 0.02, source: 'provider-default' });
    expect(unknownRegion.note).toContain('"xx-moon-1" not in zonewise\'s table');
    const noRegion = crossZonePrice({ cloud: 'gcp' });
    expect(noRegion).toMatchObject({ pricePerGb: 0.01, source: 'provider-default' });
    expect(noRegion.note).toContain('no region given');
  });

  it('an unknown or missing cloud is priced like AWS and flagged', () => {
    const oracle = crossZonePrice({ cloud: 'oracle', region: 'us-ashburn-1' });
    expect(oracle).toMatchObject({ pricePerGb: 0.02, source: 'unknown-cloud-default' });
    expect(oracle.note).toContain('unknown cloud "oracle"');
    expect(crossZonePrice({ cloud: null, region: null })).toMatchObject({
      pricePerGb: 0.02,
      source: 'unknown-cloud-default',
    });
    expect(crossZonePrice({}).note).toContain('no cloud given');
  });
});

describe('crossZonePrice: the catalogue, the organization and the cluster', () => {
  it("the cluster's price wins over the organization's, which wins over the catalogue", () => {
    const base = { cloud: 'aws', region: 'us-east-1' };
    expect(crossZonePrice({ ...base, organizationOverridePerGb: 0.015 })).toMatchObject({
      pricePerGb: 0.015,
      source: 'organization-override',
    });
    expect(crossZonePrice({ ...base, organizationOverridePerGb: 0.015, overridePerGb: 0.005 })).toMatchObject({
      pricePerGb: 0.005,
      source: 'cluster-override',
    });
    expect(crossZonePrice({ ...base, organizationOverridePerGb: -1 })).toMatchObject({
      pricePerGb: 0.02,
      source: 'provider-region',
    });
  });

  it('on-prem is 0 (nothing is billed); every catalogue entry names its source and date', () => {
    for (const cloud of ['onprem', 'on-prem', 'bare-metal']) {
      expect(crossZonePrice({ cloud })).toMatchObject({ pricePerGb: 0, source: 'provider-default' });
    }
    for (const entry of priceCatalogue()) {
      expect(entry.url).toMatch(/^https:\/\//);
      expect(entry.sourceDate).toMatch(/^\d{4}-\d{2}(-\d{2})?$/);
      expect(entry.sourceSays.length).toBeGreaterThan(20);
      expect(entry.currency).toBe('USD');
    }
  });
});

describe('monthlyTrafficGb: API value, then annotation, then the per-endpoint default', () => {
  const annotated = (value: string) => ({ [MONTHLY_TRAFFIC_ANNOTATION]: value });

  it('a value set through the API wins over the annotation', () => {
    expect(monthlyTrafficGb({ explicitGb: 42, annotations: annotated('1000'), readyEndpoints: 3 })).toEqual({
      gb: 42,
      source: 'api',
      estimate: false,
      note: 'set through the API',
    });
  });

  it('the annotation is read as GB per month', () => {
    for (const [text, gb] of [
      ['120', 120],
      ['0', 0],
      ['0.5', 0.5],
      [' 80 ', 80],
      ['1.5e3', 1500],
    ] as const) {
      expect(monthlyTrafficGb({ annotations: annotated(text), readyEndpoints: 3 })).toMatchObject({
        gb,
        source: 'annotation',
        estimate: false,
      });
    }
  });

  it('a bad annotation value is ignored with a note, never a crash, and the default applies', () => {
    for (const bad of ['abc', '-5', '', '10GB', 'Infinity', 'NaN', '1e999', '0x10', '1,000']) {
      const traffic = monthlyTrafficGb({ annotations: annotated(bad), readyEndpoints: 2 });
      expect(traffic.source).toBe('default-per-endpoint');
      expect(traffic.gb).toBe(2 * DEFAULT_MONTHLY_GB_PER_ENDPOINT);
      expect(traffic.estimate).toBe(true);
      expect(traffic.note).toContain(`ignored ${MONTHLY_TRAFFIC_ANNOTATION}: ${JSON.stringify(bad)}`);
    }
  });

  it('a bad API value is ignored too, and the annotation is used', () => {
    const traffic = monthlyTrafficGb({ explicitGb: -3, annotations: annotated('70'), readyEndpoints: 1 });
    expect(traffic).toMatchObject({ gb: 70, source: 'annotation', estimate: false });
  });

  it('the default is 50 GB per ready endpoint, flagged as an estimate', () => {
    expect(DEFAULT_MONTHLY_GB_PER_ENDPOINT).toBe(50);
    expect(monthlyTrafficGb({ readyEndpoints: 3 })).toEqual({
      gb: 150,
      source: 'default-per-endpoint',
      estimate: true,
      note: 'estimate: 50 GB per ready endpoint × 3 ready endpoints',
    });
    expect(monthlyTrafficGb({ annotations: {}, readyEndpoints: 1 }).note).toBe(
      'estimate: 50 GB per ready endpoint × 1 ready endpoint',
    );
    expect(monthlyTrafficGb({ explicitGb: null, annotations: null, readyEndpoints: 0 }).gb).toBe(0);
  });
});

describe('serviceCost: cross-zone GB and cost without hints, with hints, and the realized saving', () => {
  it('hand-computed: 1,000 GB, 2/3 crossing without hints, 1/4 with, at $0.02', () => {
    const cost = serviceCost({
      trafficGb: 1000,
      crossZone: { withoutHints: 2 / 3, withHints: 0.25 },
      pricePerGb: 0.02,
    });
    // 1000 × 2/3 = 666.67 GB → $13.33; 1000 × 1/4 = 250 GB → $5.00; saved 416.67 GB → $8.33.
    expect(cost.withoutHints.crossZoneGb).toBeCloseTo(666.6667, 4);
    expect(cost.withoutHints.cost).toBeCloseTo(13.3333, 4);
    expect(cost.withHints).toEqual({ crossZoneGb: 250, cost: 5 });
    expect(cost.realizedSavings.crossZoneGb).toBeCloseTo(416.6667, 4);
    expect(cost.realizedSavings.cost).toBeCloseTo(8.3333, 4);
    expect(cost.inputs).toMatchObject({ trafficSource: 'caller', priceSource: 'caller', estimate: false });
  });

  it('carries where its traffic and price came from', () => {
    const traffic = deepFreeze(monthlyTrafficGb({ readyEndpoints: 4 }));
    const price = deepFreeze(crossZonePrice({ cloud: 'gcp', region: 'us-central1' }));
    const cost = serviceCost({ trafficGb: traffic, crossZone: { withoutHints: 0.5, withHints: 0 }, pricePerGb: price });
    // 200 GB (4 × 50) × 0.5 = 100 GB at $0.01 = $1.
    expect(cost.withoutHints).toEqual({ crossZoneGb: 100, cost: 1 });
    expect(cost.withHints).toEqual({ crossZoneGb: 0, cost: 0 });
    expect(cost.inputs).toEqual({
      trafficGb: 200,
      trafficSource: 'default-per-endpoint',
      trafficEstimate: true,
      trafficNote: traffic.note,
      pricePerGb: 0.01,
      currency: 'USD',
      priceSource: 'provider-region',
      priceNote: price.note,
      estimate: true,
      crossZoneSource: 'model',
      modelCrossZone: 0,
      measuredCrossZone: null,
    });
  });

  it('the unknown-cloud price makes a figure an estimate even with declared traffic', () => {
    const cost = serviceCost({
      trafficGb: monthlyTrafficGb({ explicitGb: 10, readyEndpoints: 1 }),
      crossZone: { withoutHints: 1, withHints: 1 },
      pricePerGb: crossZonePrice({ cloud: 'somecloud' }),
    });
    expect(cost.inputs.estimate).toBe(true);
    expect(cost.realizedSavings).toEqual({ crossZoneGb: 0, cost: 0 });
  });

  it('property: cost is GB × price, and realized = without − with', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1e6, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (trafficGb, withoutHints, withHints, pricePerGb) => {
          const cost = serviceCost({ trafficGb, crossZone: { withoutHints, withHints }, pricePerGb });
          expect(cost.withoutHints.crossZoneGb).toBeCloseTo(trafficGb * withoutHints, 6);
          expect(cost.withHints.cost).toBeCloseTo(trafficGb * withHints * pricePerGb, 6);
          expect(cost.realizedSavings.cost).toBeCloseTo(cost.withoutHints.cost - cost.withHints.cost, 6);
          expect(cost.withHints.crossZoneGb).toBeLessThanOrEqual(trafficGb);
        },
      ),
    );
  });
});

describe('missedSavings: what enabling topology-mode Auto would save', () => {
  it('hand-computed: 300 GB, 2/3 crossing today, none with the hints Auto would write, at $0.02', () => {
    const missed = missedSavings({
      trafficGb: 300,
      pricePerGb: 0.02,
      current: { withoutHints: 2 / 3, withHints: 2 / 3 },
      ifEnabled: { state: 'populated', reason: null, crossZone: { withoutHints: 2 / 3, withHints: 0 } },
    });
    expect(missed.wouldPopulate).toBe(true);
    expect(missed.reason).toBeNull();
    expect(missed.today.crossZoneGb).toBeCloseTo(200, 9);
    expect(missed.today.cost).toBeCloseTo(4, 9);
    expect(missed.ifEnabled).toEqual({ crossZoneGb: 0, cost: 0 });
    expect(missed.savings.cost).toBeCloseTo(4, 9);
    expect(missed.crossZone).toEqual({ today: 2 / 3, ifEnabled: 0 });
  });

  it('nothing to gain when the controller would remove the hints; the reason is kept', () => {
    const reason =
      'Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (4 endpoints, 3 zones)';
    const missed = missedSavings({
      trafficGb: 300,
      pricePerGb: 0.02,
      current: { withoutHints: 2 / 3, withHints: 2 / 3 },
      ifEnabled: { state: 'removed', reason, crossZone: { withoutHints: 2 / 3, withHints: 2 / 3 } },
    });
    expect(missed.wouldPopulate).toBe(false);
    expect(missed.reason).toBe(reason);
    expect(missed.savings).toEqual({ crossZoneGb: 0, cost: 0 });
    expect(missed.ifEnabled).toEqual(missed.today);
  });
});

describe('the measured share: as routed today, the measurement wins; the counterfactuals stay the model', () => {
  const crossZone = { withoutHints: 2 / 3, withHints: 0 };

  it('hand-computed: 1,000 GB with populated hints (model 0 %), 40 % measured crossing, at $0.02', () => {
    const cost = serviceCost({ trafficGb: 1000, crossZone, pricePerGb: 0.02, measuredCrossZone: 0.4 });
    expect(cost.withHints.crossZoneGb).toBeCloseTo(400, 9);
    expect(cost.withHints.cost).toBeCloseTo(8, 9);
    expect(cost.withoutHints.cost).toBeCloseTo(1000 * (2 / 3) * 0.02, 9);
    expect(cost.realizedSavings.cost).toBeCloseTo(1000 * (2 / 3 - 0.4) * 0.02, 9);
    expect(cost.crossZone).toEqual({ withoutHints: 2 / 3, withHints: 0.4 });
    expect(cost.inputs).toMatchObject({ crossZoneSource: 'measured', modelCrossZone: 0, measuredCrossZone: 0.4 });
  });

  it('a share that is not a fraction in [0, 1] is ignored: the model is used and says so', () => {
    for (const bad of [Number.NaN, -0.1, 1.5, Number.POSITIVE_INFINITY, null, undefined]) {
      const cost = serviceCost({ trafficGb: 1000, crossZone, pricePerGb: 0.02, measuredCrossZone: bad });
      expect(cost.withHints.cost).toBe(0);
      expect(cost.inputs).toMatchObject({ crossZoneSource: 'model', measuredCrossZone: null });
    }
  });

  it('missed savings start from the measured share and end at the model’s preview', () => {
    const missed = missedSavings({
      trafficGb: 300,
      pricePerGb: 0.02,
      current: { withoutHints: 2 / 3, withHints: 2 / 3 },
      ifEnabled: { state: 'populated', reason: null, crossZone: { withoutHints: 2 / 3, withHints: 0.1 } },
      measuredCrossZone: 0.5,
    });
    expect(missed.crossZone).toEqual({ today: 0.5, ifEnabled: 0.1 });
    expect(missed.savings.crossZoneGb).toBeCloseTo(300 * 0.4, 9);
    expect(missed.savings.cost).toBeCloseTo(300 * 0.4 * 0.02, 9);
  });

  it('flags populated hints whose measured share is more than 10 points above the model', () => {
    const flagged = measuredContradiction({
      hintState: 'populated',
      honoursHints: true,
      modelCrossZone: 0,
      measuredCrossZone: 0.4,
    });
    expect(flagged).toMatchObject({ modelCrossZone: 0, measuredCrossZone: 0.4 });
    expect(flagged!.reason).toContain('40.0 %');
    const base = { hintState: 'populated', honoursHints: true, modelCrossZone: 0.05 };
    expect(measuredContradiction({ ...base, measuredCrossZone: 0.15 })).toBeNull();
    expect(measuredContradiction({ ...base, measuredCrossZone: 0.150001 })).not.toBeNull();
    expect(measuredContradiction({ ...base, measuredCrossZone: null })).toBeNull();
    expect(measuredContradiction({ ...base, hintState: 'removed', measuredCrossZone: 0.9 })).toBeNull();
    expect(measuredContradiction({ ...base, honoursHints: false, measuredCrossZone: 0.9 })).toBeNull();
    expect(measuredContradiction({ ...base, honoursHints: null, measuredCrossZone: 0.9 })).not.toBeNull();
  });
});

describe('describePricingModel', () => {
  it('states the unit, the prices crossZonePrice uses, the default traffic and the formulas', () => {
    const model = describePricingModel();
    expect(model.defaultMonthlyGbPerEndpoint).toBe(DEFAULT_MONTHLY_GB_PER_ENDPOINT);
    expect(model.trafficAnnotation).toBe(MONTHLY_TRAFFIC_ANNOTATION);
    for (const entry of model.prices) {
      for (const region of entry.regions) {
        expect(crossZonePrice({ cloud: entry.cloud, region })).toMatchObject({
          pricePerGb: entry.pricePerGb,
          source: 'provider-region',
        });
      }
    }
    expect(model.prices.map((entry) => [entry.cloud, entry.pricePerGb])).toEqual([
      ['aws', 0.02],
      ['gcp', 0.01],
      ['azure', 0],
      ['on-prem', 0],
    ]);
    expect(model.crossZoneGb).toContain('requests plus responses');
    expect(model.markdown).toContain('| AWS | 0.02 |');
    expect(model.markdown).toContain('50 GB per ready endpoint');
    expect(model.markdown).toContain('realized savings = cost without hints − cost with the hints as they are');
  });

  it('hands out copies: changing the answer does not change the model', () => {
    const first = describePricingModel();
    first.prices[0].pricePerGb = 99;
    (first.prices[0].regions as string[]).push('xx-1');
    expect(describePricingModel().prices[0].pricePerGb).toBe(0.02);
    expect(crossZonePrice({ cloud: 'aws', region: 'xx-1' }).source).toBe('provider-default');
  });
});
