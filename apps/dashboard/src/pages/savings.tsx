import { useQuery } from '@tanstack/react-query';
import { TableScroll } from '../components/table-scroll';
import { useMemo } from 'react';
import { Link } from 'wouter';
import { get, query } from '../api';
import { Empty, ErrorBox, EstimateBadge, Loading } from '../components/states';
import { TrafficBasis } from '../components/traffic-basis';
import { saveText, toCsv } from '../csv';
import { gb, money, number, percent, when } from '../format';
import type { Figure, Fleet, Savings } from '../types';
import { HISTORY, RUN_RATE } from '../vocabulary';
import { useUrlState } from '../url-state';

const DAY_MS = 86_400_000;

export default function SavingsPage() {
  const [param, setParams] = useUrlState();
  const groupBy = param('groupBy') || 'cluster';
  const days = Number(param('days') || 30);
  const clusterId = param('clusterId');
  // The range ends at the last whole hour: its figures stay put (a range reaching now grows every second),
  // and the query key, with its cached answer, holds for the hour.
  const range = useMemo(() => {
    const to = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
    return { from: new Date(to.getTime() - days * DAY_MS).toISOString(), to: to.toISOString() };
  }, [days]);
  const path = `/v1/savings${query({ ...range, groupBy, clusterId, namespace: param('namespace'), limit: 500 })}`;
  const savings = useQuery({ queryKey: ['savings', path], queryFn: () => get<Savings>(path) });
  const fleet = useQuery({ queryKey: ['fleet'], queryFn: () => get<Fleet>('/v1/fleet') });

  function exportCsv(data: Savings) {
    const header = [
      'cluster',
      'namespace',
      'service',
      'traffic_gb',
      'cross_zone_cost_without_hints_usd',
      'cross_zone_cost_with_hints_usd',
      'saved_usd',
      'missed_usd',
      'services',
      'opportunities',
      'estimate',
    ];
    const rows = data.groups.map((group) => [
      group.cluster.name,
      group.namespace,
      group.name,
      group.trafficGb,
      group.withoutHints.cost,
      group.withHints.cost,
      group.realizedSavings.cost,
      group.missedSavings.cost,
      group.services,
      group.opportunities,
      group.inputs.estimate,
    ]);
    saveText(
      toCsv(header, rows),
      `zonewise-savings-by-${data.groupBy}-${data.from.slice(0, 10)}-${data.to.slice(0, 10)}.csv`,
    );
  }

  return (
    <>
      <h1>Savings</h1>
      <form className="controls" onSubmit={(event) => event.preventDefault()} aria-label="savings range and grouping">
        <label>
          Range
          <select value={String(days)} onChange={(event) => setParams({ days: event.target.value })} name="days">
            <option value="7">7 days</option>
            <option value="30">30 days</option>
            <option value="90">90 days</option>
          </select>
        </label>
        <label>
          Group by
          <select value={groupBy} onChange={(event) => setParams({ groupBy: event.target.value })} name="groupBy">
            <option value="cluster">cluster</option>
            <option value="namespace">namespace</option>
            <option value="service">Service</option>
          </select>
        </label>
        <label>
          Cluster
          <select value={clusterId} onChange={(event) => setParams({ clusterId: event.target.value })} name="clusterId">
            <option value="">every cluster</option>
            {fleet.data?.clusters.map((cluster) => (
              <option key={cluster.id} value={cluster.id}>
                {cluster.name}
              </option>
            ))}
          </select>
        </label>
        {savings.data && (
          <button type="button" onClick={() => exportCsv(savings.data)}>
            Export CSV
          </button>
        )}
      </form>
      {!savings.data ? (
        savings.isError ? (
          <ErrorBox error={savings.error} title="Savings could not be computed" retry={() => savings.refetch()} />
        ) : (
          <Loading what="savings" />
        )
      ) : (
        <SavingsView data={savings.data} />
      )}
    </>
  );
}

function SavingsView({ data }: { data: Savings }) {
  const totals = data.totals;
  const inputs = `traffic by source: ${Object.entries(totals.inputs.trafficSources)
    .map(([source, count]) => `${source} ${count}`)
    .join(
      ', ',
    )}; measured share ${percent(totals.inputs.measuredShare)}; prices: ${data.pricing.map((p) => `${p.cluster.name} ${p.pricePerGb} USD/GB (${p.source})`).join(', ')}`;
  return (
    <>
      <p className="muted">
        {when(data.from)} → {when(data.to)} · {number(totals.months)} service-months
      </p>
      <section className="tiles" aria-label="totals over the range">
        {[
          [`Cost over the range (${HISTORY})`, totals.withHints, 'savings-cost'],
          [`Saved over the range (${HISTORY})`, totals.realizedSavings, 'savings-saved'],
          [`Missed over the range (${HISTORY})`, totals.missedSavings, 'savings-missed'],
        ].map(([label, figure, testId]) => (
          <div className="tile" key={label as string} data-testid={testId as string}>
            <div className="tile-label">
              {label as string} {totals.inputs.estimate && <EstimateBadge inputs={inputs} />}
            </div>
            <div className="tile-value">{money((figure as Figure).cost)}</div>
            <div className="muted small">
              {gb((figure as Figure).crossZoneGb)} across zones in the range (history, not the monthly {RUN_RATE} of the
              Fleet page)
            </div>
          </div>
        ))}
      </section>
      <p className="muted small" data-testid="savings-measured-share">
        Traffic behind these figures: {percent(totals.inputs.measuredShare)} measured (
        {gb(totals.inputs.measuredTrafficGb)} of {gb(totals.trafficGb)}), the rest estimated.{' '}
        <span data-testid="savings-measured-cost">
          Measured volume and cross-zone share ({totals.measured.services} Services):{' '}
          {money(totals.measured.withHints.cost)} of the {money(totals.withHints.cost)} as routed (
          {percent(totals.measured.withHintsCostShare)}), {money(totals.measured.realizedSavings.cost)} of the realised
          and {money(totals.measured.missedSavings.cost)} of the missed savings; the rest estimated.
        </span>
      </p>
      <h2>By {data.groupBy === 'service' ? 'Service' : data.groupBy}</h2>
      {data.groups.length === 0 ? (
        <Empty>No recorded history in this range: widen it, or wait for the agents' snapshots.</Empty>
      ) : (
        <TableScroll label="savings groups">
          <table className="data" data-testid="savings-groups">
            <thead>
              <tr>
                <th scope="col">
                  {data.groupBy === 'service' ? 'Service' : data.groupBy === 'namespace' ? 'Namespace' : 'Cluster'}
                </th>
                <th scope="col" className="num">
                  Traffic
                </th>
                <th scope="col" className="num">
                  Cost without hints
                </th>
                <th scope="col" className="num">
                  Cost as routed
                </th>
                <th scope="col" className="num">
                  Saved
                </th>
                <th scope="col" className="num">
                  Missed
                </th>
                <th scope="col" className="num">
                  Opportunities
                </th>
              </tr>
            </thead>
            <tbody>
              {data.groups.map((group) => (
                <tr key={`${group.cluster.id}/${group.namespace}/${group.name}`}>
                  <td>
                    <Link href={`/clusters/${group.cluster.id}`}>{group.cluster.name}</Link>
                    {group.namespace && ` / ${group.namespace}`}
                    {group.name && ` / ${group.name}`}
                  </td>
                  <td className="num">{gb(group.trafficGb)}</td>
                  <td className="num">{money(group.withoutHints.cost)}</td>
                  <td className="num">
                    {money(group.withHints.cost)}
                    <TrafficBasis measuredShare={group.inputs.measuredShare} />
                  </td>
                  <td className="num">{money(group.realizedSavings.cost)}</td>
                  <td className="num">{money(group.missedSavings.cost)}</td>
                  <td className="num">{group.opportunities}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {data.truncated && (
        <p className="muted small">Only the largest groups are listed; the totals cover everything.</p>
      )}
      <h2>Opportunities, largest first</h2>
      {data.opportunities.length === 0 ? (
        <Empty>No opportunity: every Service that would get hints already has topology routing.</Empty>
      ) : (
        <ol data-testid="opportunities">
          {data.opportunities.slice(0, 25).map((opportunity) => (
            <li key={`${opportunity.cluster.id}/${opportunity.namespace}/${opportunity.name}`}>
              <Link href={`/clusters/${opportunity.cluster.id}/services/${opportunity.namespace}/${opportunity.name}`}>
                {opportunity.cluster.name} / {opportunity.namespace}/{opportunity.name}
              </Link>
              : {money(opportunity.missedSavings.cost)} over the range ({gb(opportunity.missedSavings.crossZoneGb)}{' '}
              across zones)
              {opportunity.estimate && ' (estimate)'}
            </li>
          ))}
        </ol>
      )}
    </>
  );
}
