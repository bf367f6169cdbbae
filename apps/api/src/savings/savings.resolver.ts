import { Inject, UseGuards } from '@nestjs/common';
import { Args, ID, Int, Query, Resolver } from '@nestjs/graphql';
import { DAY_MS } from '@zw/core';
import { ApiKeyGuard } from '../auth/api-key.guard.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { timestampArg } from '../graphql-context/context.js';
import { type SavingsFigures, SavingsReport } from './savings.models.js';
import { validationProblem } from '../problem.js';
import { SavingsService } from './savings.service.js';

type SavingsAnswer = Awaited<ReturnType<SavingsService['savings']>>;

@Resolver(() => SavingsReport)
@UseGuards(ApiKeyGuard)
export class SavingsResolver {
  constructor(@Inject(SavingsService) private readonly savingsService: SavingsService) {}

  @Query(() => SavingsReport, { description: 'savings over a time range, grouped, with the ranked opportunities' })
  async savings(
    @CurrentCaller() caller: Caller,
    @Args('from', { nullable: true }) from?: string,
    @Args('to', { nullable: true }) to?: string,
    @Args('groupBy', { nullable: true, defaultValue: 'cluster' }) groupBy?: string,
    @Args('clusterId', { type: () => ID, nullable: true }) clusterId?: string,
    @Args('limit', { type: () => Int, nullable: true, defaultValue: 100 }) limit?: number,
  ): Promise<SavingsReport> {
    if (groupBy !== 'cluster' && groupBy !== 'namespace' && groupBy !== 'service') {
      throw validationProblem([
        { location: 'query', field: 'groupBy', message: 'expected cluster, namespace or service' },
      ]);
    }
    const end = timestampArg('to', to, new Date());
    const report = await this.savingsService.savings(caller.organizationId, {
      from: timestampArg('from', from, new Date(end.getTime() - 30 * DAY_MS)).toISOString(),
      to: end.toISOString(),
      groupBy,
      clusterId,
      limit: Math.min(Math.max(limit ?? 100, 1), 1000),
    });
    return savingsReportModel(report);
  }
}

function savingsReportModel(report: SavingsAnswer): SavingsReport {
  return {
    from: report.from,
    to: report.to,
    totals: figuresModel(report.totals),
    groups: report.groups.map((group) => ({
      ...figuresModel(group),
      clusterId: group.cluster.id,
      clusterName: group.cluster.name,
      namespace: group.namespace,
      name: group.name,
    })),
    opportunities: report.opportunities.map((o) => ({
      clusterId: o.cluster.id,
      clusterName: o.cluster.name,
      namespace: o.namespace,
      name: o.name,
      trafficGb: o.trafficGb,
      missedSavings: o.missedSavings,
      estimate: o.estimate,
    })),
  };
}

function figuresModel(f: SavingsAnswer['totals']): SavingsFigures {
  return {
    trafficGb: f.trafficGb,
    withoutHints: f.withoutHints,
    withHints: f.withHints,
    realizedSavings: f.realizedSavings,
    missedSavings: f.missedSavings,
    services: f.services,
    opportunities: f.opportunities,
    estimate: f.inputs.estimate,
  };
}
