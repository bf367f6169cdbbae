import { Controller, Get, Inject, Param, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ReadDb, summaryDocuments } from '@zw/db';
import { ApiKeyAuth } from '../auth/auth.decorators.js';
import { type CachedAnswer, ReadModelCache } from '../cache/read-model-cache.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { ApiPathParams, ApiQueryFrom, ApiResponseFrom } from '../http/openapi.js';
import { clusterIdOf, parseInput } from '../http/validation.js';
import { ServicesService } from './services.service.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AtQuery, ServiceCidrsSchema, ZonesSchema } from './cluster-state.schemas.js';

interface NodeInfoZone {
  name: string;
  allocatableCpuMillis: number;
  cpuRatio: number;
  readyNodes: number;
}

/** Cluster-wide views of one snapshot: its zones and its Service IP ranges. */
@ApiTags('clusters')
@ApiKeyAuth()
@Controller('v1/clusters/:id')
export class ClusterStateController {
  constructor(
    @Inject(ReadDb) private readonly db: ReadDb,
    @Inject(ServicesService) private readonly services: ServicesService,
    @Inject(ReadModelCache) private readonly cache: ReadModelCache,
  ) {}

  /** Cached per organization, cluster, route and instant; dropped when the cluster's data changes. */
  private async cached(
    route: string,
    caller: Caller,
    id: string,
    query: unknown,
    compute: (clusterId: string, at: string | undefined) => Promise<unknown>,
  ): Promise<CachedAnswer> {
    const clusterId = clusterIdOf(id);
    const { at } = parseInput(AtQuery, query, 'query');
    return this.cache.clusterAnswer(route, caller.organizationId, clusterId, { at }, () => compute(clusterId, at));
  }

  private async documents(caller: Caller, clusterId: string, at: string | undefined) {
    const head = await this.services.head(caller.organizationId, clusterId);
    const [row] = await summaryDocuments(this.db, [clusterId], at ? new Date(at) : null);
    return {
      ref: {
        cluster: { id: head.id, name: head.name },
        asOf: row?.captured_at.toISOString() ?? null,
        snapshotId: row?.snapshot_id ?? null,
      },
      row,
    };
  }

  @Get('zones')
  @ApiOperation({ summary: "The cluster's zones: CPU share, endpoints, expected overload" })
  @ApiPathParams({ id: 'cluster id' })
  @ApiQueryFrom(AtQuery)
  @ApiResponseFrom(200, ZonesSchema, 'the zones of the newest (or the chosen) snapshot')
  async zones(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Query() query: unknown,
    @Req() request: IncomingMessage,
    @Res() response: ServerResponse,
  ): Promise<void> {
    const answer = await this.cached('zones', caller, id, query, (clusterId, at) =>
      this.zonesOf(caller, clusterId, at),
    );
    await answer.send(request, response);
  }

  private async zonesOf(caller: Caller, clusterId: string, at: string | undefined) {
    const { ref, row } = await this.documents(caller, clusterId, at);
    return {
      ...ref,
      nodeInfo: { sufficient: row?.node_info_sufficient ?? null, reason: row?.node_info_reason ?? null },
      // Snapshots recorded before zone statistics existed only have the node summary.
      zones: row
        ? ((row.zone_stats as unknown[] | null) ?? ((row.zones as NodeInfoZone[]) ?? []).map(fromNodeInfo))
        : [],
    };
  }

  @Get('service-cidrs')
  @ApiOperation({
    summary: "The cluster's Service CIDRs: bands, utilization, static IPs in the dynamic band, free well-known IPs",
  })
  @ApiPathParams({ id: 'cluster id' })
  @ApiQueryFrom(AtQuery)
  @ApiResponseFrom(200, ServiceCidrsSchema, 'the Service CIDR analysis of the newest (or the chosen) snapshot')
  async serviceCidrs(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Query() query: unknown,
    @Req() request: IncomingMessage,
    @Res() response: ServerResponse,
  ): Promise<void> {
    const answer = await this.cached('service-cidrs', caller, id, query, async (clusterId, at) => {
      const { ref, row } = await this.documents(caller, clusterId, at);
      return { ...ref, serviceCIDRs: (row?.service_cidrs as unknown[] | null) ?? [] };
    });
    await answer.send(request, response);
  }
}

function fromNodeInfo(zone: NodeInfoZone) {
  return {
    name: zone.name,
    cpuShare: zone.cpuRatio,
    allocatableCpuMillis: zone.allocatableCpuMillis,
    readyNodes: zone.readyNodes,
    trafficShare: null,
    readyEndpoints: 0,
    hintedEndpoints: 0,
    expectedOverload: { max: 0, maxService: null, mean: null, servicesAboveThreshold: 0 },
  };
}
