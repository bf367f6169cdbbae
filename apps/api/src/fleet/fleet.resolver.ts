import { Inject, UseGuards } from '@nestjs/common';
import { Args, ID, Query, Resolver } from '@nestjs/graphql';
import { type FleetRow, fleetRows, ReadDb } from '@zw/db';
import { ApiKeyGuard } from '../auth/api-key.guard.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { clusterPricing } from '../cluster-pricing.js';
import { analysisSettingsView } from '../clusters/analysis-settings.js';
import { Cluster, Fleet } from '../graphql-models/models.js';
import { notFound } from '../problem.js';
import { measurementSourceOf } from '../services/service-view.js';
import type { ClusterModel } from './cluster.resolver.js';
import { FleetService } from './fleet.service.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

@Resolver(() => Fleet)
@UseGuards(ApiKeyGuard)
export class FleetResolver {
  constructor(
    @Inject(ReadDb) private readonly db: ReadDb,
    @Inject(FleetService) private readonly fleetService: FleetService,
  ) {}

  @Query(() => Fleet, { description: "every cluster of the caller's organization" })
  async fleet(@CurrentCaller() caller: Caller): Promise<Fleet> {
    const now = new Date();
    const rows = await fleetRows(this.db, caller.organizationId);
    return {
      generatedAt: now.toISOString(),
      currency: 'USD',
      clusters: rows.map((row) => this.clusterModel(row, now)),
    };
  }

  @Query(() => Cluster, { description: 'one cluster (NOT_FOUND when the organization has no such cluster)' })
  async cluster(@CurrentCaller() caller: Caller, @Args('id', { type: () => ID }) id: string): Promise<Cluster> {
    const [row] = UUID.test(id) ? await fleetRows(this.db, caller.organizationId, [id]) : [];
    if (!row) throw notFound(`no cluster ${id} in your organization`);
    return this.clusterModel(row, new Date());
  }

  private clusterModel(row: FleetRow, now: Date): ClusterModel {
    const view = this.fleetService.clusterView(row, now);
    const pricing = clusterPricing({
      cloud: row.cloud as 'aws' | 'gcp' | 'azure' | 'other',
      region: row.region,
      crossZonePricePerGb: row.price_override,
      organizationPricePerGb: row.org_price_override,
    });
    return {
      id: view.id,
      name: view.name,
      cloud: view.cloud,
      region: view.region,
      kubernetesVersion: row.kubernetes_version_override,
      dataPlane: row.data_plane_override,
      analysisSettings: analysisSettingsView({
        capturedAt: row.summary_captured_at,
        kubernetesVersion: row.analysis_kubernetes_version,
        kubernetesVersionSource: row.analysis_kubernetes_version_source,
        dataPlane: row.analysis_data_plane,
        dataPlaneSource: row.analysis_data_plane_source,
      }),
      hintStates: view.services,
      servicesWithDrift: view.servicesWithDrift,
      servicesWithIgnoredHints: view.servicesWithIgnoredHints,
      nodeInfoSufficient: view.nodeInfo.sufficient,
      nodeInfoReason: view.nodeInfo.reason,
      crossZone: view.crossZone,
      lastSnapshot: view.lastSnapshot,
      monthly: view.monthly,
      trafficSource: view.trafficSource,
      asOf: row.summary_captured_at?.toISOString() ?? null,
      pricePerGb: pricing.pricePerGb,
      pricing,
      measurementSource: measurementSourceOf(row),
    };
  }
}
