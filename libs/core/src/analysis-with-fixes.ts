/** The `analyze` output with each Service's fixes and the cluster's node blockers. */
import type { AnalysisReport, ServiceAnalysis } from './analyze.js';
import type { NodeBlockers, Recommendation, SnapshotRecommendations } from './recommendations.js';

export type ServiceAnalysisWithFixes = ServiceAnalysis & { recommendations: Recommendation[] };

export type AnalysisWithFixes<R extends AnalysisReport = AnalysisReport> = Omit<R, 'services'> & {
  services: (R['services'][number] & { recommendations: Recommendation[] })[];
  nodeBlockers: NodeBlockers | null;
};

/** The report with each Service's `recommendations` and the cluster's `nodeBlockers` (report order kept). */
export function withRecommendations<R extends AnalysisReport>(
  report: R,
  fixes: SnapshotRecommendations,
): AnalysisWithFixes<R> {
  return {
    ...report,
    services: report.services.map((service, index) => ({
      ...service,
      recommendations: fixes.services[index]?.recommendations ?? [],
    })),
    nodeBlockers: fixes.nodeBlockers,
  };
}
