import { useQuery } from '@tanstack/react-query';
import { useDeferredValue } from 'react';
import { Link, useParams } from 'wouter';
import { get, query } from '../api';
import { CidrBands } from '../components/cidr-bands';
import { ClusterFacts } from '../components/cluster/facts';
import { ServicesTable } from '../components/cluster/services-table';
import { SummaryBand } from '../components/cluster/summary-band';
import { BlockingNodes, TopFixes } from '../components/cluster/top-fixes';
import { ZonesPanel } from '../components/cluster/zones-panel';
import { Freshness } from '../components/freshness';
import { Answer, Empty, ErrorBox } from '../components/states';
import { TrendCharts } from '../components/trends';
import { SERVICE_FILTERS, servicesPath, servicesQuery } from '../critical-queries';
import type {
  ClusterDetail,
  ClusterRecommendations,
  FleetClusterAnswer,
  ServiceCidrs,
  ServiceCounts,
  Zones,
} from '../types';
import { useUrlState } from '../url-state';

/** How many of the best fixes the cluster page lists (the Service page has all of a Service's). */
const TOP_FIXES = 5;
/** The list's filters the counts take (sort, order, page size and cursor are the list's alone). */
const COUNTED = SERVICE_FILTERS.filter((name) => name !== 'sort' && name !== 'order');

/**
 * A cluster, designed for 10,000 Services: the summary band and the top fixes first, then the Services
 * (filtered, counted and paged by the API), trends, zones and Service CIDRs.
 */
export default function ClusterPage() {
  const { id } = useParams<{ id: string }>();
  const [param] = useUrlState();
  const services = useQuery({ ...servicesQuery(servicesPath(id, param)), placeholderData: (previous) => previous });
  // The table's answer goes first (it names the cluster too): everything else asks for its own once it
  // has arrived, so on a large cluster nothing holds it up. Deferred: the table's rows are drawn in a
  // commit of their own, the other panels' first renders after it.
  const secondary = useDeferredValue(!services.isPending);
  const countsPath = `/v1/clusters/${id}/services/counts${query(Object.fromEntries(COUNTED.map((name) => [name, param(name)])))}`;
  const counts = useQuery({
    queryKey: ['services', countsPath],
    queryFn: () => get<ServiceCounts>(countsPath),
    enabled: secondary,
    placeholderData: (previous) => previous,
  });
  const summary = useQuery({
    queryKey: ['fleet', 'cluster', id],
    queryFn: () => get<FleetClusterAnswer>(`/v1/fleet/clusters/${id}`),
    enabled: secondary,
  });
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

  if (cluster.isError && !cluster.data) {
    return <ErrorBox error={cluster.error} title="The cluster could not be loaded" retry={() => cluster.refetch()} />;
  }
  const nodeInfo = zones.data?.nodeInfo;
  return (
    <>
      <p className="small">
        <Link href="/">Fleet</Link> ›
      </p>
      <h1>{cluster.data?.name ?? services.data?.cluster.name ?? 'Cluster'}</h1>
      <p className="muted small">
        <Freshness query={services} />
      </p>
      {secondary && (
        <Answer query={summary} what="the cluster's figures" title="The cluster's figures could not be loaded">
          {(data) => <SummaryBand cluster={data.cluster} />}
        </Answer>
      )}
      {nodeInfo?.sufficient === false && (
        <div className="error" role="alert" data-testid="blocker">
          <strong>Hints are off for every Service of this cluster.</strong> {nodeInfo.reason}. Give every node a zone
          label and allocatable CPU.
          {fixes.data?.nodeBlockers && <BlockingNodes blockers={fixes.data.nodeBlockers} />}
        </div>
      )}
      <h2>Top fixes</h2>
      {secondary && (
        <Answer query={fixes} what="fixes" title="The fixes could not be ranked">
          {(data) => <TopFixes clusterId={id} services={data.services} />}
        </Answer>
      )}
      <h2>Services</h2>
      <ServicesTable clusterId={id} services={services} counts={counts} />
      {cluster.data && (
        <>
          <h2>Cluster</h2>
          <ClusterFacts cluster={cluster.data} ignoredHints={summary.data?.cluster.servicesWithIgnoredHints} />
        </>
      )}
      <h2>Trends</h2>
      {secondary && <TrendCharts path={`/v1/clusters/${id}/trends`} />}
      <h2>Zones</h2>
      {secondary && (
        <Answer query={zones} what="zones" title="The zones could not be loaded">
          {(data) => <ZonesPanel zones={data} />}
        </Answer>
      )}
      <h2>Service CIDRs</h2>
      {secondary && (
        <Answer query={cidrs} what="Service CIDRs" title="The Service CIDRs could not be loaded">
          {(data) =>
            data.serviceCIDRs.length === 0 ? (
              <Empty>No Service CIDR in the newest snapshot.</Empty>
            ) : (
              <CidrBands cidrs={data.serviceCIDRs} />
            )
          }
        </Answer>
      )}
    </>
  );
}
