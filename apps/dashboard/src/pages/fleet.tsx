import { useQuery } from '@tanstack/react-query';
import { type ReactNode, useMemo } from 'react';
import { Link } from 'wouter';
import { get } from '../api';
import { HintBar } from '../components/hint-bar';
import { TrendCharts } from '../components/trends';
import { Empty, ErrorBox, EstimateBadge, Loading } from '../components/states';
import { age, money, number, percent } from '../format';
import type { Fleet as FleetAnswer, FleetCluster } from '../types';
import { useUrlState } from '../url-state';

type SortKey = 'name' | 'services' | 'drift' | 'cost' | 'savings' | 'missed' | 'age';

const SORTS: Record<SortKey, (cluster: FleetCluster) => number | string> = {
  name: (cluster) => cluster.name,
  services: (cluster) => cluster.services.populated + cluster.services.removed + cluster.services.none,
  drift: (cluster) => cluster.servicesWithDrift ?? -1,
  cost: (cluster) => cluster.monthly?.withHints.cost ?? -1,
  savings: (cluster) => cluster.monthly?.realizedSavings.cost ?? -1,
  missed: (cluster) => cluster.monthly?.missedSavings.cost ?? -1,
  age: (cluster) => cluster.lastSnapshot?.ageSeconds ?? Number.MAX_SAFE_INTEGER,
};

function fleetInputs(fleet: FleetAnswer): string {
  const estimated = fleet.clusters.reduce(
    (sum, cluster) => sum + (cluster.monthly?.servicesWithEstimatedTraffic ?? 0),
    0,
  );
  const prices = [
    ...new Set(
      fleet.clusters.flatMap((c) =>
        c.monthly ? [`${c.monthly.pricing.pricePerGb} USD/GB (${c.monthly.pricing.source})`] : [],
      ),
    ),
  ];
  return (
    `${number(fleet.totals.monthly.trafficGb)} GB a month over ${fleet.totals.clusters} clusters; ` +
    `${estimated} Services on the per-endpoint default volume; measured share ${percent(fleet.totals.monthly.measuredShare)}; ` +
    `prices: ${prices.join(', ') || 'none yet'}`
  );
}

function atStakeInputs(fleet: FleetAnswer): string {
  const atStake = fleet.totals.monthly.atStake;
  return (
    `${atStake.services} Services ask for topology routing but their hints were refused: ` +
    `${number(atStake.trafficGb)} GB a month of their traffic (${atStake.servicesWithEstimatedTraffic} on the per-endpoint default volume), ` +
    `${number(atStake.crossZoneGb)} GB of it crossing zones as routed today; the most fixing the causes could save. ` +
    fleetInputs(fleet)
  );
}

export default function FleetPage() {
  const fleet = useQuery({ queryKey: ['fleet'], queryFn: () => get<FleetAnswer>('/v1/fleet') });
  const [param, setParams] = useUrlState();
  const sort = (param('sort') || 'name') as SortKey;
  const order = param('order') || (sort === 'name' ? 'asc' : 'desc');
  const filter = param('q').toLowerCase();
  const only = param('only');

  const rows = useMemo(() => {
    const clusters = fleet.data?.clusters ?? [];
    const key = SORTS[sort] ?? SORTS.name;
    const kept = clusters.filter(
      (cluster) =>
        (filter === '' || `${cluster.name} ${cluster.cloud} ${cluster.region ?? ''}`.toLowerCase().includes(filter)) &&
        (only !== 'stale' || (cluster.lastSnapshot?.stale ?? true)) &&
        (only !== 'node-info' || cluster.nodeInfo.sufficient === false) &&
        (only !== 'drift' || (cluster.servicesWithDrift ?? 0) > 0),
    );
    const direction = order === 'asc' ? 1 : -1;
    return kept.sort((a, b) => {
      const left = key(a);
      const right = key(b);
      return (typeof left === 'string' ? left.localeCompare(right as string) : left - (right as number)) * direction;
    });
  }, [fleet.data, sort, order, filter, only]);

  if (fleet.isPending) return <Loading what="the fleet" />;
  if (fleet.isError) return <ErrorBox error={fleet.error} title="The fleet could not be loaded" />;
  const data = fleet.data;
  const totals = data.totals.monthly;
  const estimate = data.clusters.some((cluster) => cluster.monthly?.estimate);
  const inputs = fleetInputs(data);

  const header = (key: SortKey, label: string) => {
    const active = sort === key;
    const next = active && order === 'desc' ? 'asc' : active ? 'desc' : key === 'name' ? 'asc' : 'desc';
    return (
      <th scope="col" aria-sort={active ? (order === 'asc' ? 'ascending' : 'descending') : 'none'}>
        <button type="button" className="sort" onClick={() => setParams({ sort: key, order: next })}>
          {label}
          {active ? (order === 'asc' ? ' ▲' : ' ▼') : ''}
        </button>
      </th>
    );
  };

  return (
    <>
      <h1>Fleet</h1>
      <p className="muted">
        {data.totals.clusters} clusters, {data.totals.staleClusters} without a recent snapshot · as of{' '}
        {new Date(data.generatedAt).toLocaleTimeString()}
      </p>
      <section className="tiles" aria-label="monthly figures">
        <Tile
          label="Cross-zone cost a month"
          value={money(totals.withHints.cost)}
          testId="tile-cost"
          estimate={estimate}
          inputs={inputs}
        >
          as routed today; {money(totals.withoutHints.cost)} without any hints
        </Tile>
        <Tile
          label="Saved by topology routing"
          value={money(totals.realizedSavings.cost)}
          testId="tile-saved"
          estimate={estimate}
          inputs={inputs}
        >
          {number(totals.realizedSavings.crossZoneGb)} GB a month kept in-zone
        </Tile>
        <Tile
          label="Missed (not enabled)"
          value={money(totals.missedSavings.cost)}
          testId="tile-missed"
          estimate={estimate}
          inputs={inputs}
        >
          if routing were enabled where hints would be populated
        </Tile>
        <Tile
          label="At stake (hints refused)"
          value={money(totals.atStake.cost)}
          testId="tile-at-stake"
          estimate={totals.atStake.estimate}
          inputs={atStakeInputs(data)}
        >
          <span data-testid="at-stake-services">{number(totals.atStake.services)}</span> Services with routing enabled
          whose hints the controller refused: at most this much could be saved
        </Tile>
      </section>

      <h2>Trends</h2>
      <TrendCharts path="/v1/fleet/trends" />
      <h2>Clusters</h2>
      {data.clusters.length === 0 ? (
        <Empty>
          No cluster yet: <Link href="/admin">register one</Link> and install the agent with the line it shows.
        </Empty>
      ) : (
        <>
          <div className="controls">
            <label>
              Filter by name, cloud or region{' '}
              <input
                type="search"
                value={param('q')}
                onChange={(event) => setParams({ q: event.target.value }, { replace: param('q') !== '' })}
              />
            </label>
            <label>
              Show{' '}
              <select value={only} onChange={(event) => setParams({ only: event.target.value })}>
                <option value="">every cluster</option>
                <option value="stale">stale agents</option>
                <option value="node-info">node info insufficient</option>
                <option value="drift">with drift</option>
              </select>
            </label>
            <span className="muted" aria-live="polite">
              {rows.length} of {data.clusters.length} shown
            </span>
          </div>
          <table className="data" data-testid="clusters-table">
            <thead>
              <tr>
                {header('name', 'Cluster')}
                {header('services', 'Services by hint state')}
                {header('drift', 'Drift')}
                <th scope="col">Node info</th>
                {header('age', 'Agent')}
                {header('cost', 'Cost / month')}
                {header('savings', 'Saved / month')}
                {header('missed', 'Missed / month')}
              </tr>
            </thead>
            <tbody>
              {rows.map((cluster) => (
                <tr key={cluster.id} data-cluster={cluster.name}>
                  <td>
                    <Link href={`/clusters/${cluster.id}`}>{cluster.name}</Link>
                    <div className="muted small">
                      {cluster.cloud}
                      {cluster.region ? ` · ${cluster.region}` : ''}
                      {cluster.kubernetesVersion ? ` · Kubernetes ${cluster.kubernetesVersion}` : ''}
                    </div>
                  </td>
                  <td>
                    <HintBar counts={cluster.services} />
                    <div className="muted small">
                      {cluster.services.populated} / {cluster.services.removed} / {cluster.services.none}
                    </div>
                  </td>
                  <td className="num">{number(cluster.servicesWithDrift)}</td>
                  <td>
                    {cluster.nodeInfo.sufficient === false ? (
                      <span className="bad" title={cluster.nodeInfo.reason ?? ''}>
                        insufficient
                      </span>
                    ) : cluster.nodeInfo.sufficient ? (
                      'sufficient'
                    ) : (
                      '—'
                    )}
                  </td>
                  <td>
                    {cluster.lastSnapshot ? (
                      <span className={cluster.lastSnapshot.stale ? 'bad' : ''}>
                        {cluster.lastSnapshot.stale ? 'stale, ' : ''}
                        {age(cluster.lastSnapshot.ageSeconds)}
                      </span>
                    ) : (
                      <span className="bad">no snapshot yet</span>
                    )}
                  </td>
                  <td className="num">{money(cluster.monthly?.withHints.cost)}</td>
                  <td className="num">{money(cluster.monthly?.realizedSavings.cost)}</td>
                  <td className="num">{money(cluster.monthly?.missedSavings.cost)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </>
  );
}

function Tile(props: {
  label: string;
  value: string;
  testId: string;
  estimate: boolean;
  inputs: string;
  children: ReactNode;
}) {
  return (
    <div className="tile" data-testid={props.testId}>
      <div className="tile-label">
        {props.label} {props.estimate && <EstimateBadge inputs={props.inputs} />}
      </div>
      <div className="tile-value">{props.value}</div>
      <div className="muted small">{props.children}</div>
    </div>
  );
}
