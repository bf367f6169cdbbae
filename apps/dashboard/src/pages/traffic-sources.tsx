import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link } from 'wouter';
import { get, request } from '../api';
import { isOperator } from '../auth';
import { ClusterPicker, useAllClusters } from '../components/cluster-picker';
import { ConfirmButton } from '../components/confirm-button';
import { Empty, ErrorBox, Loading } from '../components/states';
import { gb, money, number, percent, when } from '../format';
import { TableScroll } from '../components/table-scroll';
import { useIdentity } from '../identity';
import type { TrafficComparison, TrafficSource, TrafficSourceBody } from '../types';
import { useUrlState } from '../url-state';

/**
 * The presets the API takes (PutTrafficSourceBody's `preset`), with what each reads. `satisfies` ties the
 * list to the generated type: a preset the API adds or drops fails the dashboard's build here.
 */
const PRESETS = {
  istio: 'Istio sidecars (HTTP and TCP bytes)',
  'istio-ambient': 'Istio ambient (ztunnel)',
  linkerd: 'Linkerd proxies',
  beyla: 'Grafana Beyla network flows',
  opencost: 'OpenCost / Kubecost network costs',
  custom: 'custom PromQL',
} satisfies Record<TrafficSourceBody['preset'], string>;
type Preset = keyof typeof PRESETS;

/** Statuses that are not a failure: the figures are good (ok), partial, or not asked yet. */
const GOOD = new Set(['ok', 'partial']);
const WAITING = 'pending';

/** What a status means, in a few words (the API's `lastError` says the rest). */
const STATUS_WORDS: Record<string, string> = {
  pending: 'testing the connection…',
  ok: 'connected: measured',
  partial: 'connected: less history than the window',
  empty: 'connected, but no series for this cluster',
  'wrong-labels': 'connected, but the series carry other labels',
  ambiguous: 'connected, but the series belong to several clusters',
  'invalid-values': 'connected, but a measured increase is negative or not finite',
  unreachable: 'not reachable',
  timeout: 'no answer in time',
  'bad-response': 'answered, but not as a Prometheus HTTP API',
  'refused-address': 'refused: a private or local address',
  'bad-credentials': 'refused our credentials (401/403)',
  'no-snapshot': 'waiting for the cluster’s first snapshot',
};

/**
 * Traffic sources: per cluster, the Prometheus (or Thanos, Mimir…) the worker reads measured traffic
 * from. Saving asks the worker to measure at once; the page follows the source until its first answer and
 * shows the status it got, with the API's reason.
 */
export default function TrafficSourcesPage() {
  const identity = useIdentity();
  const [param, setParams] = useUrlState();
  const clusters = useAllClusters();
  const clusterId = param('cluster');
  return (
    <>
      <h1>Traffic sources</h1>
      <p className="muted">
        Without a source, cross-zone traffic is estimated from each Service&apos;s declared or default volume. A source
        is a Prometheus HTTP API the worker queries for each cluster&apos;s measured bytes between Services.
      </p>
      {!clusters.data ? (
        clusters.isError ? (
          <ErrorBox error={clusters.error} retry={() => clusters.refetch()} />
        ) : (
          <Loading what="clusters" />
        )
      ) : clusters.data.length === 0 ? (
        <Empty>
          No cluster yet: register one on the <Link href="/admin">Admin</Link> page first.
        </Empty>
      ) : (
        <>
          <div className="controls">
            <ClusterPicker
              clusters={clusters.data}
              value={clusterId}
              onChange={(id) => setParams({ cluster: id || null })}
            />
          </div>
          {clusterId ? (
            <SourceOf key={clusterId} clusterId={clusterId} canWrite={isOperator(identity.data)} />
          ) : (
            <Empty>Choose a cluster to see or set its traffic source.</Empty>
          )}
        </>
      )}
    </>
  );
}

function SourceOf({ clusterId, canWrite }: { clusterId: string; canWrite: boolean }) {
  const client = useQueryClient();
  const path = `/v1/clusters/${clusterId}/traffic-source`;
  // The comparison answer carries the source (null: none), so a cluster without one is no 404.
  const comparison = useQuery({
    queryKey: ['traffic-source', clusterId],
    queryFn: () => get<TrafficComparison>(`/v1/clusters/${clusterId}/measured-traffic`),
    // A source being tested is asked again each second until the worker's first answer.
    refetchInterval: (state) => (state.state.data?.source?.status === WAITING ? 1000 : false),
  });
  const saved = () => {
    void client.invalidateQueries({ queryKey: ['traffic-source', clusterId] });
    // Measured or not, the cluster's figures change basis.
    void client.invalidateQueries({ queryKey: ['fleet'] });
  };
  const put = useMutation({
    mutationFn: (body: TrafficSourceBody) => request<TrafficSource>('PUT', path, body),
    onSuccess: saved,
  });
  const remove = useMutation({
    mutationFn: () => request<void>('DELETE', path),
    onSuccess: saved,
  });
  if (comparison.data === undefined) {
    return comparison.isError ? (
      <ErrorBox error={comparison.error} retry={() => comparison.refetch()} />
    ) : (
      <Loading what="the traffic source" />
    );
  }
  const current = comparison.data.source;
  return (
    <>
      {current ? (
        <>
          <SourceStatus source={current} />
          <Comparison comparison={comparison.data} />
        </>
      ) : (
        <Empty>This cluster has no traffic source: its traffic is estimated.</Empty>
      )}
      {put.isError && <ErrorBox error={put.error} title="The source was not saved" />}
      {remove.isError && <ErrorBox error={remove.error} title="The source was not removed" />}
      {canWrite ? (
        <>
          <SourceForm key={current ? 'change' : 'new'} current={current} pending={put.isPending} onSave={put.mutate} />
          {current && (
            <div className="controls">
              <button
                type="button"
                disabled={put.isPending || current.status === WAITING}
                onClick={() => put.mutate(sameSource(current))}
              >
                Test connection again
              </button>
              <ConfirmButton
                label="Remove source"
                className="danger"
                question="Remove this cluster's traffic source?"
                consequence={
                  <p>
                    Its measurements are deleted at once and every figure of the cluster goes back to estimated traffic.
                    The stored Authorization header goes with it.
                  </p>
                }
                confirm="Remove source"
                onConfirm={() => remove.mutate()}
              />
            </div>
          )}
        </>
      ) : (
        <p className="muted small">Read only: an operator or admin sets traffic sources.</p>
      )}
    </>
  );
}

/** The stored source as a body that keeps everything, the Authorization header included (omitted). */
function sameSource(source: TrafficSource): TrafficSourceBody {
  return {
    preset: source.preset,
    url: source.url,
    window: source.window,
    interval: source.interval,
    ...(source.queryTemplate ? { queryTemplate: source.queryTemplate } : {}),
    clusterLabel: source.clusterLabel,
    clusterValue: source.clusterValue,
    caBundle: source.caBundle,
  };
}

function SourceStatus({ source }: { source: TrafficSource }) {
  const status = source.status;
  const tone = GOOD.has(status) ? 'ok' : status === WAITING ? '' : 'bad';
  return (
    <section className="panel" aria-labelledby="source-status-heading" data-testid="source-status" data-status={status}>
      <h2 id="source-status-heading">Connection</h2>
      <p role="status" aria-live="polite">
        <strong className={tone} data-testid="source-status-word">
          {status}
        </strong>{' '}
        — {STATUS_WORDS[status] ?? status}
        {source.lastError && (
          <span className="detail" data-testid="source-error">
            : {source.lastError}
          </span>
        )}
      </p>
      <dl className="facts">
        <dt>Prometheus</dt>
        <dd>
          <code>{source.url}</code> ({PRESETS[source.preset as Preset] ?? source.preset}, every {source.interval}, over{' '}
          {source.window}){source.hasAuthHeader ? ' · with a stored Authorization header' : ''}
        </dd>
        <dt>Last attempt</dt>
        <dd>
          {when(source.lastAttemptAt)}
          {source.consecutiveFailures > 0 ? ` (${number(source.consecutiveFailures)} failures in a row)` : ''}
        </dd>
        <dt>Last success</dt>
        <dd>{when(source.lastSuccessAt)}</dd>
        {source.servicesMeasured !== null && (
          <>
            <dt>Measured</dt>
            <dd data-testid="source-measured">
              {number(source.servicesMeasured)} Services from {number(source.seriesCount)} series
              {source.unmatchedSeries ? ` (${number(source.unmatchedSeries)} series name no Service)` : ''}
              {source.coverage !== null && source.coverage < 1 ? `, ${percent(source.coverage)} of the window` : ''}
            </dd>
          </>
        )}
        <dt>Query</dt>
        <dd>
          <code className="block">{source.query}</code>
        </dd>
      </dl>
    </section>
  );
}

function SourceForm({
  current,
  pending,
  onSave,
}: {
  current: TrafficSource | null;
  pending: boolean;
  onSave: (body: TrafficSourceBody) => void;
}) {
  const [preset, setPreset] = useState<Preset>((current?.preset as Preset | undefined) ?? 'istio');
  const [url, setUrl] = useState(current?.url ?? '');
  const [windowText, setWindowText] = useState(current?.window ?? '1h');
  const [every, setEvery] = useState(current?.interval ?? '5m');
  const [template, setTemplate] = useState(current?.queryTemplate ?? '');
  const [clusterLabel, setClusterLabel] = useState(current?.clusterLabel ?? '');
  const [clusterValue, setClusterValue] = useState(current?.clusterValue ?? '');
  const [caBundle, setCaBundle] = useState(current?.caBundle ?? '');
  const [auth, setAuth] = useState('');
  const [dropAuth, setDropAuth] = useState(false);

  function submit(event: FormEvent) {
    event.preventDefault();
    onSave({
      preset,
      url,
      window: windowText,
      interval: every,
      ...(preset === 'custom' ? { queryTemplate: template } : {}),
      ...(clusterLabel ? { clusterLabel } : {}),
      clusterValue: clusterValue || null,
      caBundle: caBundle || null,
      // Empty keeps the stored header (omitted); "remove" sends null.
      ...(dropAuth ? { authHeader: null } : auth ? { authHeader: auth } : {}),
    });
    // The header is write-only: it leaves the form once sent.
    setAuth('');
    setDropAuth(false);
  }

  return (
    <form className="panel source-form" onSubmit={submit} aria-label="traffic source">
      <h2>{current ? 'Change the source' : 'Set a source'}</h2>
      <div className="controls">
        <label>
          Preset
          <select value={preset} onChange={(event) => setPreset(event.target.value as Preset)} name="preset">
            {Object.entries(PRESETS).map(([value, words]) => (
              <option key={value} value={value}>
                {value}: {words}
              </option>
            ))}
          </select>
        </label>
        <label className="wide">
          Prometheus URL
          <input
            value={url}
            onChange={(event) => setUrl(event.target.value)}
            name="url"
            type="url"
            required
            placeholder="https://prometheus.example:9090"
          />
        </label>
        <label>
          Window
          <input value={windowText} onChange={(event) => setWindowText(event.target.value)} name="window" size={6} />
        </label>
        <label>
          Every
          <input value={every} onChange={(event) => setEvery(event.target.value)} name="interval" size={6} />
        </label>
      </div>
      {preset === 'custom' && (
        <label className="block">
          PromQL (bytes by namespace and service over $window)
          <textarea
            value={template}
            onChange={(event) => setTemplate(event.target.value)}
            name="queryTemplate"
            rows={3}
          />
        </label>
      )}
      <div className="controls">
        <label>
          Cluster label
          <input
            value={clusterLabel}
            onChange={(event) => setClusterLabel(event.target.value)}
            name="clusterLabel"
            placeholder="cluster"
          />
        </label>
        <label>
          Its value for this cluster
          <input
            value={clusterValue}
            onChange={(event) => setClusterValue(event.target.value)}
            name="clusterValue"
            placeholder="any"
          />
        </label>
        <label className="wide">
          Authorization header
          <input
            value={auth}
            onChange={(event) => setAuth(event.target.value)}
            name="authHeader"
            type="password"
            autoComplete="off"
            disabled={dropAuth}
            placeholder={current?.hasAuthHeader ? 'stored (empty keeps it)' : 'Bearer … (optional)'}
          />
        </label>
        {current?.hasAuthHeader && (
          <label className="check">
            <input type="checkbox" checked={dropAuth} onChange={(event) => setDropAuth(event.target.checked)} /> Remove
            the stored header
          </label>
        )}
      </div>
      <label className="block">
        CA bundle (PEM, for a private CA; empty: the public roots)
        <textarea value={caBundle} onChange={(event) => setCaBundle(event.target.value)} name="caBundle" rows={2} />
      </label>
      <p className="muted small">
        Saving asks the worker to measure at once: the status above is the answer it gets. A changed source drops the
        previous source&apos;s measurements.
      </p>
      <button type="submit" className="primary" disabled={pending}>
        Save and test connection
      </button>
    </form>
  );
}

/** The model against the measurement, over the cluster's newest state (as the API compares them). */
function Comparison({ comparison }: { comparison: TrafficComparison }) {
  if (comparison.measured.trafficGb === null) return null;
  const rows: [string, number | null, number | null, (value: number | null) => string][] = [
    ['Traffic a month', comparison.estimated.trafficGb, comparison.measured.trafficGb, gb],
    ['Crossing zones', comparison.estimated.crossZone, comparison.measured.crossZone, percent],
    ['Cross-zone cost a month', comparison.estimated.cost, comparison.measured.cost, money],
  ];
  return (
    <section aria-labelledby="comparison-heading">
      <h2 id="comparison-heading">Estimated against measured</h2>
      <p className="muted small">
        Over the {number(comparison.servicesMeasured)} measured Services of {number(comparison.services)} (
        {percent(comparison.measuredShare)} of the cluster&apos;s traffic is measured).
      </p>
      <TableScroll label="estimated against measured">
        <table className="data" data-testid="source-comparison">
          <thead>
            <tr>
              <th scope="col">Figure</th>
              <th scope="col" className="num">
                Estimated
              </th>
              <th scope="col" className="num">
                Measured
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([label, estimated, measured, format]) => (
              <tr key={label}>
                <td>{label}</td>
                <td className="num">{format(estimated)}</td>
                <td className="num">{format(measured)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </section>
  );
}
