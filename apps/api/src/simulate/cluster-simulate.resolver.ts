import { Inject, UseGuards } from '@nestjs/common';
import { Args, ID, Query, Resolver } from '@nestjs/graphql';
import type { ServiceAnalysis } from '@zw/core';
import { ApiKeyGuard } from '../auth/api-key.guard.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { type HintState, type RoutingMode } from '../graphql-models/models.js';
import { clusterIdOf } from '../http/validation.js';
import {
  ClusterSimulation,
  type SimulatedService,
  ServiceRefInput,
  WhatIfInput,
} from './cluster-simulate.graphql-models.js';
import { type ClusterSimulation as ClusterSimulationView, ClusterSimulateService } from './cluster-simulate.service.js';

/**
 * GraphQL's `clusterSimulation`: `POST /v1/clusters/{id}/simulate` as a query (it stores nothing). The
 * arguments become the REST body and go through the same service, so validation and problems are the
 * REST route's, as GraphQL errors with their codes.
 */
@Resolver(() => ClusterSimulation)
@UseGuards(ApiKeyGuard)
export class ClusterSimulateResolver {
  constructor(@Inject(ClusterSimulateService) private readonly simulation: ClusterSimulateService) {}

  @Query(() => ClusterSimulation, {
    description:
      "the cluster's newest processed snapshot analyzed with what-ifs (as POST /v1/clusters/{id}/simulate; NOT_FOUND for another organization's cluster)",
  })
  async clusterSimulation(
    @CurrentCaller() caller: Caller,
    @Args('id', { type: () => ID }) id: string,
    @Args('whatIf', { type: () => WhatIfInput, nullable: true }) whatIf?: WhatIfInput | null,
    @Args('services', { type: () => [ServiceRefInput], nullable: true, description: 'only these Services' })
    services?: ServiceRefInput[] | null,
  ): Promise<ClusterSimulation> {
    const body = { ...(whatIf ? { whatIf: withoutNulls(whatIf) } : {}), ...(services ? { services } : {}) };
    return simulationModel(await this.simulation.simulate(caller.organizationId, clusterIdOf(id), body));
  }
}

/** GraphQL passes omitted optional fields as absent and explicit nulls as null; the REST body has neither. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, field]) => field !== null && field !== undefined)
      .map(([key, field]) => [key, withoutNulls(field)]),
  );
}

function simulationModel(view: ClusterSimulationView): ClusterSimulation {
  const { summary } = view.analysis;
  return {
    clusterId: view.cluster.id,
    clusterName: view.cluster.name,
    snapshotId: view.snapshotId,
    capturedAt: view.capturedAt,
    summary: {
      services: summary.services,
      servicesWithDrift: summary.servicesWithDrift,
      servicesWithIgnoredHints: summary.servicesWithIgnoredHints,
      crossZone: summary.crossZone,
    },
    services: view.analysis.services.map(serviceModel),
  };
}

function serviceModel(service: ServiceAnalysis): SimulatedService {
  return {
    namespace: service.namespace,
    name: service.name,
    routing: service.routing as RoutingMode,
    hintState: service.hints.state as HintState,
    hintReason: service.hints.reason,
    readyEndpoints: service.readyEndpoints,
    crossZone: service.crossZone,
    dataPath: { honoursHints: service.dataPath.honoursHints, reason: service.dataPath.reason },
    zones: Object.keys(service.zones)
      .sort()
      .map((zone) => ({ zone, ...service.zones[zone] })),
  };
}
