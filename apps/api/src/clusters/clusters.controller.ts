import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { AuditActor } from '@zw/db';
import { CurrentActor } from '../audit/audit-actor.js';
import { assertRole } from '../auth/api-key.guard.js';
import { AdminOnly, ApiKeyAuth, OperatorOnly } from '../auth/auth.decorators.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { ApiBodyFrom, ApiPathParams, ApiQueryFrom, ApiResponseFrom } from '../http/openapi.js';
import { clusterIdOf, parseInput } from '../http/validation.js';
import {
  ClusterListSchema,
  type ClusterListView,
  ClusterSchema,
  type ClusterView,
  CreateClusterBody,
  CreatedClusterSchema,
  type CreatedClusterView,
  ListClustersQuery,
  RotatedTokenSchema,
  type RotatedTokenView,
  UpdateClusterBody,
} from './clusters.schemas.js';
import { ClustersService } from './clusters.service.js';

/** What an operator may change on a cluster: its price (a price override); the rest is the admin's. */
const OPERATOR_CLUSTER_FIELDS = new Set(['crossZonePricePerGb']);

@ApiTags('clusters')
@ApiKeyAuth()
@Controller('v1/clusters')
export class ClustersController {
  constructor(@Inject(ClustersService) private readonly clusters: ClustersService) {}

  @Post()
  @AdminOnly()
  @ApiOperation({ summary: 'Register a cluster; the answer carries its agent token, shown only once' })
  @ApiBodyFrom(CreateClusterBody)
  @ApiResponseFrom(201, CreatedClusterSchema, 'created')
  @ApiResponse({ status: 409, description: 'the organization already has a cluster with this name' })
  create(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Body() body: unknown,
  ): Promise<CreatedClusterView> {
    return this.clusters.create(caller.organizationId, parseInput(CreateClusterBody, body, 'body'), actor);
  }

  @Get()
  @ApiOperation({ summary: "The organization's clusters, by name" })
  @ApiQueryFrom(ListClustersQuery)
  @ApiResponseFrom(200, ClusterListSchema, 'one page of clusters')
  list(@CurrentCaller() caller: Caller, @Query() query: unknown): Promise<ClusterListView> {
    return this.clusters.list(caller.organizationId, parseInput(ListClustersQuery, query, 'query'));
  }

  @Get(':id')
  @ApiOperation({ summary: 'One cluster' })
  @ApiPathParams({ id: 'cluster id' })
  @ApiResponseFrom(200, ClusterSchema, 'the cluster')
  get(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<ClusterView> {
    return this.clusters.get(caller.organizationId, clusterIdOf(id));
  }

  @Patch(':id')
  @OperatorOnly()
  @ApiOperation({
    summary:
      'Rename a cluster, change its cloud, region or cross-zone price, or override the Kubernetes version and data plane its agent reports',
    description:
      'An operator may change the cross-zone price (a price override) alone; every other field needs the admin role.',
  })
  @ApiPathParams({ id: 'cluster id' })
  @ApiBodyFrom(UpdateClusterBody)
  @ApiResponseFrom(200, ClusterSchema, 'the cluster as changed')
  @ApiResponse({ status: 409, description: 'the organization already has a cluster with the new name' })
  update(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<ClusterView> {
    const clusterId = clusterIdOf(id);
    const changes = parseInput(UpdateClusterBody, body, 'body');
    if (Object.keys(changes).some((field) => !OPERATOR_CLUSTER_FIELDS.has(field))) assertRole(caller, 'admin');
    return this.clusters.update(caller.organizationId, clusterId, changes, actor);
  }

  @Post(':id/agent-token')
  @AdminOnly()
  @HttpCode(200)
  @ApiOperation({ summary: "Rotate the cluster's agent token: the old one stops working at once" })
  @ApiPathParams({ id: 'cluster id' })
  @ApiResponseFrom(200, RotatedTokenSchema, 'the new token, shown only once')
  rotateToken(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Param('id') id: string,
  ): Promise<RotatedTokenView> {
    return this.clusters.rotateToken(caller.organizationId, clusterIdOf(id), actor);
  }

  @Delete(':id')
  @AdminOnly()
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a cluster with its agent token, snapshots and history' })
  @ApiPathParams({ id: 'cluster id' })
  async delete(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Param('id') id: string,
  ): Promise<void> {
    await this.clusters.delete(caller.organizationId, clusterIdOf(id), actor);
  }
}
