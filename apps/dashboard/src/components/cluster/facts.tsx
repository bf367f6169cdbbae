import { Link } from 'wouter';
import { number, when } from '../../format';
import type { AnalysisSettings, ClusterDetail, SettingSource } from '../../types';

const SOURCE_WORDS: Record<SettingSource, string> = {
  override: 'override set through the API',
  snapshot: "the agent's report",
  default: "the analysis' default",
};

/** What the newest analysis modelled, and where each setting came from. */
function AnalysisVerdict({ settings }: { settings: AnalysisSettings }) {
  return (
    <>
      <dt>Kubernetes</dt>
      <dd data-testid="analysis-version">
        {settings.kubernetesVersion ?? 'default'}{' '}
        <span className="muted small">
          (from {SOURCE_WORDS[settings.kubernetesVersionSource]}, analysis of {when(settings.asOf)})
        </span>
      </dd>
      <dt>Data plane</dt>
      <dd data-testid="analysis-data-plane">
        {settings.dataPlane ?? 'default'}{' '}
        <span className="muted small">(from {SOURCE_WORDS[settings.dataPlaneSource]})</span>
      </dd>
    </>
  );
}

/** The cluster: cloud, the analysis' Kubernetes version and data plane, overrides, ignored hints, price. */
export function ClusterFacts({ cluster, ignoredHints }: { cluster: ClusterDetail; ignoredHints?: number | null }) {
  const pricing = cluster.pricing;
  return (
    <dl className="facts">
      <dt>Cloud</dt>
      <dd>
        {cluster.cloud}
        {cluster.region ? ` · ${cluster.region}` : ''}
      </dd>
      {cluster.analysisSettings ? (
        <AnalysisVerdict settings={cluster.analysisSettings} />
      ) : (
        <>
          <dt>Kubernetes and data plane</dt>
          <dd className="muted">no analysis yet</dd>
        </>
      )}
      {(cluster.kubernetesVersion || cluster.dataPlane) && (
        <>
          <dt>Overrides</dt>
          <dd>
            {[
              cluster.kubernetesVersion && `Kubernetes ${cluster.kubernetesVersion}`,
              cluster.dataPlane && `data plane ${cluster.dataPlane}`,
            ]
              .filter(Boolean)
              .join(', ')}
          </dd>
        </>
      )}
      {ignoredHints !== undefined && ignoredHints !== null && (
        <>
          <dt>Hints ignored</dt>
          <dd data-testid="ignored-hints">
            <span className={ignoredHints > 0 ? 'bad' : ''}>{number(ignoredHints)}</span> Service
            {ignoredHints === 1 ? '' : 's'} whose hints are written but ignored by the data path
          </dd>
        </>
      )}
      <dt>Traffic</dt>
      <dd>
        <Link href={`/traffic-sources?cluster=${cluster.id}`}>its traffic source</Link>{' '}
        <span className="muted small">(a Prometheus to measure traffic, instead of estimating it)</span>
      </dd>
      <dt>Price</dt>
      <dd data-testid="cluster-price">
        {pricing.pricePerGb} USD per cross-zone GB ({pricing.note})
        {pricing.pricePerGb === 0 && (
          <strong>
            {' '}
            — every cost of this cluster is $0.00 because its price is zero, not because nothing crosses zones
          </strong>
        )}
      </dd>
    </dl>
  );
}
