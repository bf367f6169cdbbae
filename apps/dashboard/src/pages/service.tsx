import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { Link, useParams } from 'wouter';
import { get, query } from '../api';
import { Freshness } from '../components/freshness';
import { Fixes } from '../components/service/fixes';
import { Drift, KubeProxyView } from '../components/service/kube-proxy';
import { StatePanel } from '../components/service/state-panel';
import { Timeline } from '../components/service/timeline';
import { WhatIf } from '../components/service/what-if';
import { ZonesChart } from '../components/service/zone-allocations';
import { Empty, ErrorBox, Loading } from '../components/states';
import { when } from '../format';
import type { ServiceDetail } from '../types';
import { useUrlState } from '../url-state';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Fitted (the default): this much history is asked for, and the strip starts at the Service's first state in it. */
const FIT_DAYS = 30;

export default function ServicePage() {
  const { id, namespace, name } = useParams<{ id: string; namespace: string; name: string }>();
  const [param, setParams] = useUrlState();
  const chosen = param('days');
  const days = Number(chosen || FIT_DAYS);
  // Whole hours, so the query (and its cache entry) holds for a while.
  const from = useMemo(
    () => new Date(Math.floor(Date.now() / HOUR_MS) * HOUR_MS - days * DAY_MS).toISOString(),
    [days],
  );
  const path = `/v1/clusters/${id}/services/${namespace}/${name}${query({ from })}`;
  const detail = useQuery({
    queryKey: ['service', id, namespace, name, days],
    queryFn: () => get<ServiceDetail>(path),
    placeholderData: (previous) => previous,
  });

  if (!detail.data) {
    return detail.isError ? (
      <ErrorBox error={detail.error} title="The Service could not be loaded" retry={() => detail.refetch()} />
    ) : (
      <Loading what="the Service" />
    );
  }
  const data = detail.data;
  const current = data.current;
  return (
    <>
      <p className="small">
        <Link href="/">Fleet</Link> › <Link href={`/clusters/${id}`}>{data.cluster.name}</Link> ›
      </p>
      <h1>
        {namespace}/{name}
      </h1>
      <p className="muted small">
        Newest snapshot {when(data.asOf)} · <Freshness query={detail} label="fetched" />
      </p>
      {!current ? (
        <Empty>This Service is not in the newest snapshot (last seen {when(data.lastSeen)}).</Empty>
      ) : (
        <>
          <StatePanel current={current} />
          <h2>Recommended fixes</h2>
          <Fixes fixes={data.recommendations} />
          <h2>Per zone</h2>
          <ZonesChart zones={current.zones} />
        </>
      )}
      <h2>kube-proxy's view from each zone</h2>
      <KubeProxyView kubeProxy={data.kubeProxy} />
      <h2>Drift</h2>
      <Drift drift={data.drift} />
      <h2>Timeline</h2>
      <div className="controls">
        <label>
          Range
          <select value={chosen} onChange={(event) => setParams({ days: event.target.value })} name="days">
            <option value="">fitted to its history (up to {FIT_DAYS} days)</option>
            <option value="1">1 day</option>
            <option value="7">7 days</option>
            <option value="30">30 days</option>
          </select>
        </label>
      </div>
      <Timeline timeline={data.timeline} fit={chosen === ''} />
      {current && (
        <WhatIf clusterId={id} namespace={namespace} name={name} zones={current.zones} routing={current.routing} />
      )}
    </>
  );
}
