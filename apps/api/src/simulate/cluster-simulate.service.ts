import { Inject, Injectable } from '@nestjs/common';
import { type AnalysisReport, analyzeSnapshot, applyWhatIf, WhatIfError } from '@zw/core';
import { parseInput } from '../http/validation.js';
import { ProblemException } from '../problem.js';
import { LiveViewService, overridesOf } from '../services/live-view.service.js';
import { ServicesService } from '../services/services.service.js';
import { ClusterSimulateBody } from './simulate.schemas.js';

export interface ClusterSimulation {
  cluster: { id: string; name: string };
  snapshotId: string;
  capturedAt: string;
  analysis: AnalysisReport;
}

/**
 * The what-if of `POST /v1/simulate` on the cluster's newest processed snapshot, as the API stored it,
 * for REST (`POST /v1/clusters/{id}/simulate`) and GraphQL (`clusterSimulation`) alike: the same
 * validation, the same problems (400 naming the field, 404 for another organization's cluster, 409
 * without a snapshot to simulate on). Stores nothing.
 */
@Injectable()
export class ClusterSimulateService {
  constructor(
    @Inject(ServicesService) private readonly services: ServicesService,
    @Inject(LiveViewService) private readonly live: LiveViewService,
  ) {}

  async simulate(organizationId: string, clusterId: string, body: unknown): Promise<ClusterSimulation> {
    const input = parseInput(ClusterSimulateBody, body ?? {}, 'body');
    const head = await this.services.head(organizationId, clusterId);
    if (!head.latest_snapshot_id || !head.latest_captured_at) {
      throw new ProblemException(409, `cluster ${clusterId} has no processed snapshot yet: nothing to simulate on`);
    }
    const snapshot = await this.live.snapshot(head.latest_snapshot_id, overridesOf(head));
    if (!snapshot) {
      throw new ProblemException(409, 'the raw payload of the newest snapshot is past its retention period');
    }
    let analysis: AnalysisReport;
    try {
      analysis = analyzeSnapshot(applyWhatIf(snapshot, input.whatIf ?? null));
    } catch (error) {
      if (!(error instanceof WhatIfError)) throw error;
      throw new ProblemException(400, `${error.path}: ${error.problem}`, {
        errors: [{ location: 'body', field: error.path, message: error.problem }],
      });
    }
    const wanted = input.services && new Set(input.services.map((service) => `${service.namespace}/${service.name}`));
    return {
      cluster: { id: head.id, name: head.name },
      snapshotId: head.latest_snapshot_id,
      capturedAt: head.latest_captured_at.toISOString(),
      analysis: wanted
        ? { ...analysis, services: analysis.services.filter((s) => wanted.has(`${s.namespace}/${s.name}`)) }
        : analysis,
    };
  }
}
