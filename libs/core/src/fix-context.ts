/**
 * What the version and the data plane say about each Service's fixes, read from the analysis when it
 * carries those verdicts (`kubernetesVersion`, `dataPlane`, per Service `managedBy` and `dataPath`).
 * An analysis without them is Kubernetes 1.35 with kube-proxy: every field falls back to
 * {@link KUBE_PROXY_FIX_CONTEXT}.
 */
import type { AnalysisReport, ServiceAnalysis } from './analyze.js';
import type { OfferedTrafficDistribution, ServiceFixContext } from './recommendations.js';

/** The analysis fields read here; all optional, so an analysis without them reads as the defaults. */
interface VersionAwareReport {
  kubernetesVersion?: unknown;
  dataPlane?: { name?: unknown } | null;
}

interface VersionAwareService {
  managedBy?: unknown;
  dataPath?: { honoursHints?: unknown; reason?: unknown } | null;
}

const CONTROLLER = 'endpointslice-controller';

export function fixContextFromReport(report: AnalysisReport): (service: ServiceAnalysis) => Partial<ServiceFixContext> {
  const versioned = report as AnalysisReport & VersionAwareReport;
  const offered =
    typeof versioned.kubernetesVersion === 'string'
      ? trafficDistributionOfferedBy(versioned.kubernetesVersion)
      : undefined;
  const dataPlane = typeof versioned.dataPlane?.name === 'string' ? versioned.dataPlane.name : null;
  return (service) => {
    const facts = service as ServiceAnalysis & VersionAwareService;
    const context: Partial<ServiceFixContext> = {};
    if (offered !== undefined) context.trafficDistributionOffered = offered;
    if (typeof facts.managedBy === 'string') context.managedByController = facts.managedBy === CONTROLLER;
    if (typeof facts.dataPath?.honoursHints === 'boolean') {
      context.dataPathHonoursHints = facts.dataPath.honoursHints;
      context.dataPathReason = typeof facts.dataPath.reason === 'string' ? facts.dataPath.reason : null;
      context.dataPlaneFix = facts.dataPath.honoursHints ? null : dataPlaneFixFor(dataPlane, service);
    }
    return context;
  };
}

/**
 * The `spec.trafficDistribution` value a version's default feature gates offer for keeping traffic in
 * its zone: `PreferSameZone` from 1.34 (beta, on by default; GA in 1.35), `PreferClose` from 1.31 (beta,
 * on by default), none before. A version that cannot be read is taken as current.
 */
export function trafficDistributionOfferedBy(version: string): OfferedTrafficDistribution | null {
  const match = /^v?(\d+)\.(\d+)/.exec(version.trim());
  if (match === null) return 'PreferSameZone';
  const [major, minor] = [Number(match[1]), Number(match[2])];
  if (major !== 1) return major > 1 ? 'PreferSameZone' : null;
  if (minor >= 34) return 'PreferSameZone';
  if (minor >= 31) return 'PreferClose';
  return null;
}

/**
 * Decision: only a data plane whose hint support is a setting gets a fix; a headless or ExternalName
 * Service, or a data plane that never reads hints, gets the reason only.
 */
function dataPlaneFixFor(dataPlane: string | null, service: ServiceAnalysis): ServiceFixContext['dataPlaneFix'] {
  if (dataPlane !== 'cilium-no-topology') return null;
  return {
    summary: `Enable service topology in Cilium so its kube-proxy replacement honours the hints of ${service.namespace}/${service.name}`,
    patch: [
      'helm upgrade cilium cilium/cilium -n kube-system --reuse-values --set loadBalancer.serviceTopology=true',
      'kubectl -n kube-system rollout restart daemonset/cilium',
    ].join('\n'),
  };
}
