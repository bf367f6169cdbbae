import { type UseQueryResult, useQuery } from '@tanstack/react-query';
import { TableScroll } from '../components/table-scroll';
import { memo, useDeferredValue } from 'react';
import { Link, useParams } from 'wouter';
import { get } from '../api';
import { Chart } from '../components/chart';
import { CidrBands } from '../components/cidr-bands';
import { TrendCharts } from '../components/trends';
import { Empty, ErrorBox, EstimateBadge, Loading } from '../components/states';
import { gb, money, number, percent, when } from '../format';
import { CopyableCode } from '../components/copyable-code';
import { inputsText } from '../cost-inputs';
import { fleetQuery, SERVICE_FILTERS, servicesPath, servicesQuery } from '../critical-queries';
import { TrafficBasis } from '../components/traffic-basis';
import type {
  AnalysisSettings,
  ClusterDetail,
  ClusterRecommendations,
  NodeBlockers,
  ServiceCidrs,
  ServiceFixes,
  ServiceList,
  ServiceSummary,
  SettingSource,
  Zones,
} from '../types';
import { useUrlState } from '../url-state';
import { useLinkClicks } from '../link-clicks';

/** How many of the best fixes the cluster page lists (the Service page has all of a Service's). */
const TOP_FIXES = 5;

export default function ClusterPage() {
  const { id } = useParams<{ id: string }>();
  const [param] = useUrlState();
  const services = useQuery({ ...servicesQuery(servicesPath(id, param)), placeholderData: (previous) => previous });
  // The table's answer goes first (it names the cluster too): the facts and the panels below ask for
  // theirs once it has arrived, so on a large cluster they never hold it up.
  // Deferred: the table's rows are drawn in a commit of their own, the panels' first renders after it.
  const secondary = useDeferredValue(!services.isPending);
  const cluster = useQuery({
    queryKey: ['cluster', id],
    queryFn: () => get<ClusterDetail>(`/v1/clusters/${id}`),
    enabled: secondary,
  });
  const zones = useQuery({
    queryKey: ['zones', id],
    queryFn: () => get<Zones>(`/v1/clusters/${id}/zones`),
    enabled: secondary,
  });
  const cidrs = useQuery({
    queryKey: ['cidrs', id],
    queryFn: () => get<ServiceCidrs>(`/v1/clusters/${id}/service-cidrs`),
    enabled: secondary,
  });
  // The best fixes and the node blockers: one page of the ranking, which reads rows in its index's order
  // (a 10,000-Service cluster's costs about what its Services list does).
  const fixes = useQuery({
    queryKey: ['recommendations', id, TOP_FIXES],
    queryFn: () => get<ClusterRecommendations>(`/v1/clusters/${id}/recommendations?limit=${TOP_FIXES}`),
    enabled: secondary,
  });
  // The count of Services whose hints are ignored is a fleet figure per cluster (same query as the fleet page).
  const fleet = useQuery({ ...fleetQuery, enabled: secondary });
  const ignoredHints = fleet.data?.clusters.find((entry) => entry.id === id)?.servicesWithIgnoredHints;

  if (cluster.isError && !cluster.data) {
    return <ErrorBox error={cluster.error} title="The cluster could not be loaded" retry={() => cluster.refetch()} />;
  }
  return (
    <>
      <p className="small">
        <Link href="/">Fleet</Link> ›
      </p>
      <h1>{cluster.data?.name ?? services.data?.cluster.name ?? 'Cluster'}</h1>
      {cluster.data && <ClusterFacts cluster={cluster.data} ignoredHints={ignoredHints} />}
      {zones.data?.nodeInfo.sufficient === false && (
        <div className="error" role="alert" data-testid="blocker">
          <strong>Hints are off for every Service of this cluster.</strong> {zones.data.nodeInfo.reason}
          {typeof (zones.data.nodeInfo as { detail?: unknown }).detail === 'string' &&
            ` — ${(zones.data.nodeInfo as { detail?: string }).detail}`}
          . Give every node a zone label and allocatable CPU.
          {fixes.data?.nodeBlockers && <BlockingNodes blockers={fixes.data.nodeBlockers} />}
        </div>
      )}
      <h2>Services</h2>
      <ServicesTable clusterId={id} services={services} />
      <h2>Top fixes</h2>
      {fixes.isPending ? (
        <Loading what="fixes" />
      ) : fixes.isError ? (
        <ErrorBox error={fixes.error} />
      ) : (
        <TopFixes clusterId={id} services={fixes.data.services} />
      )}
      <h2>Trends</h2>
      {secondary ? <TrendCharts path={`/v1/clusters/${id}/trends`} /> : <Loading what="trends" />}
      <h2>Zones</h2>
      {zones.isPending ? (
        <Loading what="zones" />
      ) : zones.isError ? (
        <ErrorBox error={zones.error} />
      ) : (
        <ZonesPanel zones={zones.data} />
      )}
      <h2>Service CIDRs</h2>
      {cidrs.isPending ? (
        <Loading what="Service CIDRs" />
      ) : cidrs.isError ? (
        <ErrorBox error={cidrs.error} />
      ) : cidrs.data.serviceCIDRs.length === 0 ? (
        <Empty>No Service CIDR in the newest snapshot.</Empty>
      ) : (
        <CidrBands cidrs={cidrs.data.serviceCIDRs} />
      )}
    </>
  );
}

/** The fixes ranked by what they save a month: the cluster's cheapest money first. */
function TopFixes({ clusterId, services }: { clusterId: string; services: ServiceFixes[] }) {
  if (services.length === 0) return <Empty>No fix to make: every Service that can route in-zone does.</Empty>;
  return (
    <table data-testid="top-fixes">
      <thead>
        <tr>
          <th scope="col">Service</th>
          <th scope="col">Best fix</th>
          <th scope="col">Saves a month</th>
        </tr>
      </thead>
      <tbody>
        {services.map((service) => {
          const best = service.recommendations[0];
          return (
            <tr key={`${service.namespace}/${service.name}`} data-service={`${service.namespace}/${service.name}`}>
              <td>
                <Link href={`/clusters/${clusterId}/services/${service.namespace}/${service.name}`}>
                  {service.namespace}/{service.name}
                </Link>
              </td>
              <td>
                {best && <span className="badge">{best.kind}</span>} {best?.summary}
              </td>
              <td data-testid="top-fix-savings">
                {money(service.bestSavings.cost)} ({gb(service.bestSavings.crossZoneGb)})
                {service.traffic.estimate && <EstimateBadge inputs={`traffic: ${service.traffic.source}`} />}
                <TrafficBasis measuredShare={service.traffic.source === 'measured' ? 1 : 0} />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function BlockingNodes({ blockers }: { blockers: NodeBlockers }) {
  return (
    <div data-testid="blocking-nodes">
      <p>
        {blockers.nodes.length} node{blockers.nodes.length === 1 ? '' : 's'} to fix; {number(blockers.services)} Service
        {blockers.services === 1 ? '' : 's'} depend on them, {money(blockers.savings.cost)} a month (
        {gb(blockers.savings.crossZoneGb)} across zones) saved once fixed:
      </p>
      <ul>
        {blockers.nodes.map((node) => (
          <li key={node.name} data-node={node.name}>
            <strong>{node.name}</strong>: {node.problem}
          </li>
        ))}
      </ul>
      <CopyableCode text={blockers.patch} label="the commands that fix the nodes" />
    </div>
  );
}

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

function ClusterFacts({ cluster, ignoredHints }: { cluster: ClusterDetail; ignoredHints?: number | null }) {
  const pricing = cluster.pricing as { pricePerGb: number; source: string; note: string } | undefined;
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
      {pricing && (
        <>
          <dt>Price</dt>
          <dd>
            {pricing.pricePerGb} USD per cross-zone GB ({pricing.note})
          </dd>
        </>
      )}
    </dl>
  );
}

function ServicesTable({ clusterId, services }: { clusterId: string; services: UseQueryResult<ServiceList> }) {
  const [param, setParams] = useUrlState();
  const followLink = useLinkClicks();
  const filtered = [...SERVICE_FILTERS, 'limit'].some((name) => param(name) !== '');
  const cursor = param('cursor');

  return (
    <>
      <ServiceFilters />
      {!services.data && services.isError ? (
        <ErrorBox error={services.error} title="The Services could not be listed" retry={() => services.refetch()} />
      ) : !services.data ? (
        <Loading what="Services" />
      ) : services.data.services.length === 0 ? (
        <Empty>
          {filtered
            ? 'No Service matches these filters: clear one to see more.'
            : 'No Service yet: the agent has not sent a processed snapshot of this cluster.'}
        </Empty>
      ) : (
        <>
          <p className="muted small" aria-live="polite">
            {services.data.services.length} Services as of {when(services.data.asOf)}
            {services.isFetching ? ' · loading…' : ''}
          </p>
          <TableScroll label="Services">
            <table className="data" data-testid="services-table" onClick={followLink}>
              <thead>
                <tr>
                  <th scope="col">Service</th>
                  <th scope="col">Routing</th>
                  <th scope="col">Hints</th>
                  <th scope="col" className="num">
                    Ready endpoints
                  </th>
                  <th scope="col" className="num">
                    Cross-zone
                  </th>
                  <th scope="col" className="num">
                    Cost / month
                  </th>
                  <th scope="col" className="num">
                    Saved / missed
                  </th>
                </tr>
              </thead>
              <tbody>
                {services.data.services.map((service) => (
                  <ServiceRow key={`${service.namespace}/${service.name}`} clusterId={clusterId} service={service} />
                ))}
              </tbody>
            </table>
          </TableScroll>
          <nav className="controls" aria-label="pages of Services">
            <button type="button" disabled={!cursor} onClick={() => setParams({ cursor: null })}>
              First page
            </button>
            <button type="button" disabled={!cursor} onClick={() => history.back()}>
              Previous page
            </button>
            <button
              type="button"
              disabled={!services.data.nextCursor}
              onClick={() => setParams({ cursor: services.data.nextCursor })}
            >
              Next page
            </button>
          </nav>
        </>
      )}
    </>
  );
}

/** The Services table's filters, sort and page size: drawn again only when the URL changes, not with each answer. */
const ServiceFilters = memo(function ServiceFilters() {
  const [param, setParams] = useUrlState();
  // Any change of filter or sort starts again from the first page: a cursor belongs to its own combination.
  const change = (name: string, value: string) => setParams({ [name]: value, cursor: null });
  return (
    <form className="controls" onSubmit={(event) => event.preventDefault()} aria-label="Service filters">
      <label>
        Namespace
        <input
          defaultValue={param('namespace')}
          onBlur={(e) => change('namespace', e.target.value)}
          onKeyDown={(e) => e.key === 'Enter' && change('namespace', e.currentTarget.value)}
          name="namespace"
        />
      </label>
      <label>
        Routing
        <select value={param('routing')} onChange={(e) => change('routing', e.target.value)} name="routing">
          <option value="">any</option>
          {['Auto', 'PreferClose', 'PreferSameZone', 'PreferSameNode', 'None'].map((mode) => (
            <option key={mode}>{mode}</option>
          ))}
        </select>
      </label>
      <label>
        Hint state
        <select value={param('hintState')} onChange={(e) => change('hintState', e.target.value)} name="hintState">
          <option value="">any</option>
          <option value="populated">populated</option>
          <option value="removed">removed (refused)</option>
          <option value="none">none</option>
        </select>
      </label>
      <label>
        Reason contains
        <input
          defaultValue={param('reason')}
          onBlur={(e) => change('reason', e.target.value)}
          onKeyDown={(e) => e.key === 'Enter' && change('reason', e.currentTarget.value)}
          name="reason"
        />
      </label>
      <label>
        Opportunity
        <select value={param('opportunity')} onChange={(e) => change('opportunity', e.target.value)} name="opportunity">
          <option value="">any</option>
          <option value="true">only opportunities</option>
          <option value="false">no opportunities</option>
        </select>
      </label>
      <label>
        Sort by
        <select value={param('sort') || 'name'} onChange={(e) => change('sort', e.target.value)} name="sort">
          <option value="name">name</option>
          <option value="cost">cost</option>
          <option value="savings">savings</option>
        </select>
      </label>
      <label>
        Order
        <select value={param('order')} onChange={(e) => change('order', e.target.value)} name="order">
          <option value="">default</option>
          <option value="asc">ascending</option>
          <option value="desc">descending</option>
        </select>
      </label>
      <label>
        Per page
        <select value={param('limit') || '50'} onChange={(e) => change('limit', e.target.value)} name="limit">
          {['25', '50', '100', '200', '500'].map((size) => (
            <option key={size}>{size}</option>
          ))}
        </select>
      </label>
    </form>
  );
});

// A refreshed page keeps unchanged Services as the same objects: their rows are not drawn again.
// Each cell's text is one string (one text node), not a node per JSX expression: 50 rows are drawn at once.
const ServiceRow = memo(function ServiceRow({ clusterId, service }: { clusterId: string; service: ServiceSummary }) {
  const name = `${service.namespace}/${service.name}`;
  return (
    <tr data-service={name}>
      <td>
        <a href={`/clusters/${clusterId}/services/${name}`}>{name}</a>
        {service.opportunity && <span className="badge"> opportunity</span>}
      </td>
      <td>{service.routing}</td>
      <td>
        <span className={service.hints.state === 'removed' ? 'bad' : service.hints.state === 'populated' ? 'ok' : ''}>
          {service.hints.state}
        </span>
        {service.hints.reason && <div className="muted small">{service.hints.reason}</div>}
      </td>
      <td className="num">{service.readyEndpoints}</td>
      <td className="num">{percent(service.crossZone.withHints)}</td>
      <td className="num">
        {`${money(service.monthly.withHints.cost)} `}
        {service.monthly.inputs.estimate && <EstimateBadge inputs={inputsText(service)} />}
        <TrafficBasis measuredShare={service.monthly.inputs.trafficSource === 'measured' ? 1 : 0} />
      </td>
      <td className="num">
        {`${money(service.monthly.realizedSavings.cost)} / ${money(service.monthly.missedSavings?.cost)}`}
      </td>
    </tr>
  );
});

function ZonesPanel({ zones }: { zones: Zones }) {
  if (zones.zones.length === 0) return <Empty>No zone yet: the agent has not sent a processed snapshot.</Empty>;
  const totalReady = zones.zones.reduce((sum, zone) => sum + zone.readyEndpoints, 0) || 1;
  const totalHinted = zones.zones.reduce((sum, zone) => sum + zone.hintedEndpoints, 0) || 1;
  const option = {
    tooltip: { trigger: 'axis', valueFormatter: (value: number) => `${value.toFixed(1)} %` },
    legend: { bottom: 0 },
    grid: { left: 40, right: 10, bottom: 60, top: 20 },
    xAxis: { type: 'category', data: zones.zones.map((zone) => zone.name) },
    yAxis: { type: 'value', axisLabel: { formatter: '{value} %' } },
    series: [
      { name: 'CPU share', type: 'bar', data: zones.zones.map((zone) => (zone.cpuShare ?? 0) * 100) },
      {
        name: 'ready endpoints',
        type: 'bar',
        data: zones.zones.map((zone) => (zone.readyEndpoints / totalReady) * 100),
      },
      {
        name: 'hinted endpoints',
        type: 'bar',
        data: zones.zones.map((zone) => (zone.hintedEndpoints / totalHinted) * 100),
      },
    ],
  };
  return (
    <div className="grid2">
      <Chart option={option} label="per zone: CPU share against shares of ready and hinted endpoints" />
      <TableScroll label="zones">
        <table className="data" data-testid="zones-table">
          <thead>
            <tr>
              <th scope="col">Zone</th>
              <th scope="col" className="num">
                CPU share
              </th>
              <th scope="col" className="num">
                Ready nodes
              </th>
              <th scope="col" className="num">
                Ready / hinted endpoints
              </th>
              <th scope="col" className="num">
                Expected overload (max)
              </th>
              <th scope="col" className="num">
                Services over 20 %
              </th>
            </tr>
          </thead>
          <tbody>
            {zones.zones.map((zone) => (
              <tr key={zone.name}>
                <td>{zone.name}</td>
                <td className="num">{percent(zone.cpuShare)}</td>
                <td className="num">{number(zone.readyNodes)}</td>
                <td className="num">
                  {zone.readyEndpoints} / {zone.hintedEndpoints}
                </td>
                <td className="num" title={zone.expectedOverload.maxService ?? ''}>
                  {percent(zone.expectedOverload.max)}
                </td>
                <td className="num">{zone.expectedOverload.servicesAboveThreshold}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </div>
  );
}
