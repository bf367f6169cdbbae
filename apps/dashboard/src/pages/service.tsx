import { useMutation, useQuery } from '@tanstack/react-query';
import { TableScroll } from '../components/table-scroll';
import { type FormEvent, useMemo, useState } from 'react';
import { Link, useParams } from 'wouter';
import { ApiError, get, query, request } from '../api';
import { Chart } from '../components/chart';
import { Empty, ErrorBox, EstimateBadge, Loading } from '../components/states';
import { explainState } from '../explain';
import { gb, money, number, percent, when } from '../format';
import { CopyableCode } from '../components/copyable-code';
import { TrafficBasis } from '../components/traffic-basis';
import type { Recommendation, ServiceDetail, ZoneAllocation } from '../types';
import { useUrlState } from '../url-state';
import { inputsText } from '../cost-inputs';

const DAY_MS = 86_400_000;

export default function ServicePage() {
  const { id, namespace, name } = useParams<{ id: string; namespace: string; name: string }>();
  const [param, setParams] = useUrlState();
  const days = Number(param('days') || 7);
  const range = useMemo(() => {
    const to = new Date();
    return { from: new Date(to.getTime() - days * DAY_MS).toISOString(), to: to.toISOString() };
  }, [days]);
  const path = `/v1/clusters/${id}/services/${namespace}/${name}${query({ from: range.from })}`;
  const detail = useQuery({
    queryKey: ['service', id, namespace, name, days],
    queryFn: () => get<ServiceDetail>(path),
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
      {!current ? (
        <Empty>This Service is not in the newest snapshot (last seen {when(data.lastSeen)}).</Empty>
      ) : (
        <>
          <section className="panel" data-testid="state">
            <h2 style={{ marginTop: 0 }}>
              State:{' '}
              <span
                className={current.hints.state === 'removed' ? 'bad' : current.hints.state === 'populated' ? 'ok' : ''}
              >
                {current.hints.state}
              </span>{' '}
              <span className="muted small">since {when(current.since)}</span>
            </h2>
            {explainState(current).map((line) => (
              <p key={line}>{line}</p>
            ))}
            <dl className="facts">
              <dt>Cross-zone share</dt>
              <dd>
                {percent(current.crossZone.withHints)} as routed, {percent(current.crossZone.withoutHints)} without
                hints
              </dd>
              <dt>Cost a month</dt>
              <dd data-testid="service-cost">
                {money(current.monthly.withHints.cost)} as routed; saved {money(current.monthly.realizedSavings.cost)}
                {current.monthly.missedSavings && `; missed ${money(current.monthly.missedSavings.cost)}`}{' '}
                {current.monthly.inputs.estimate && <EstimateBadge inputs={inputsText(current)} />}
                <TrafficBasis measuredShare={current.monthly.inputs.trafficSource === 'measured' ? 1 : 0} />
              </dd>
              <dt>Inputs</dt>
              <dd className="small" data-testid="service-inputs">
                {inputsText(current)}
              </dd>
              <dt>Measured traffic</dt>
              <dd data-testid="service-measured">
                {current.measured
                  ? `${gb(current.measured.trafficGb)} a month, ${
                      current.measured.crossZone === null
                        ? 'cross-zone share not measured (the source sees no zones)'
                        : `${percent(current.measured.crossZone)} across zones`
                    }`
                  : 'none: no traffic source measures this Service, so its volume is estimated'}
              </dd>
              {typeof current.modelVsMeasured?.measured.cost === 'number' && (
                <>
                  <dt>Measured cost</dt>
                  <dd data-testid="service-measured-cost">
                    {money(current.modelVsMeasured.measured.cost)} a month at the measured cross-zone share (the cost
                    above uses the modelled {percent(current.crossZone.withHints)})
                  </dd>
                </>
              )}
              {current.managedBy && (
                <>
                  <dt>Slices written by</dt>
                  <dd data-testid="managed-by">
                    {current.managedBy}
                    {current.managedBy !== 'endpointslice-controller' && (
                      <span className="muted small">
                        {' '}
                        (not the EndpointSlice controller: zonewise computes no hints)
                      </span>
                    )}
                  </dd>
                </>
              )}
              {current.dataPath && (
                <>
                  <dt>Data path</dt>
                  <dd data-testid="data-path">
                    {current.dataPath.honoursHints ? (
                      <span className="ok">honours the hints</span>
                    ) : (
                      <>
                        <span className="bad">ignores the hints, so they change nothing</span>
                        {current.dataPath.reason && `: ${current.dataPath.reason}`}
                      </>
                    )}
                  </dd>
                </>
              )}
            </dl>
          </section>
          <h2>Recommended fixes</h2>
          <Fixes fixes={data.recommendations} />
          <h2>Per zone</h2>
          <ZonesChart zones={current.zones} />
        </>
      )}
      <h2>kube-proxy's view from each zone</h2>
      {data.kubeProxy.available ? (
        <TableScroll label="kube-proxy's view per zone">
          <table className="data" data-testid="kube-proxy">
            <thead>
              <tr>
                <th scope="col">Client zone (node)</th>
                <th scope="col">With the hints observed</th>
                <th scope="col">With the hints zonewise computes</th>
              </tr>
            </thead>
            <tbody>
              {data.kubeProxy.zones.map((zone) => (
                <tr key={zone.zone}>
                  <td>
                    {zone.zone}{' '}
                    <span className="muted small">
                      ({zone.node}, 1 of {zone.nodesInZone})
                    </span>
                  </td>
                  <td>{proxyWords(zone.observed)}</td>
                  <td>{proxyWords(zone.computed)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : (
        <Empty>Not available: {data.kubeProxy.reason}</Empty>
      )}
      <h2>Drift</h2>
      <p data-testid="drift">
        {!data.drift.available
          ? 'Not available without the newest raw snapshot.'
          : data.drift.endpoints === 0
            ? 'None: the hints in the cluster are the ones zonewise computes.'
            : `${data.drift.endpoints} endpoint${data.drift.endpoints === 1 ? '' : 's'} whose observed hints differ from the computed ones${data.drift.observedHints === false ? ' (the cluster has no hints on this Service)' : ''}.`}
      </p>
      <h2>Timeline</h2>
      <div className="controls">
        <label>
          Range
          <select value={String(days)} onChange={(event) => setParams({ days: event.target.value })}>
            <option value="1">1 day</option>
            <option value="7">7 days</option>
            <option value="30">30 days</option>
          </select>
        </label>
      </div>
      <Timeline timeline={data.timeline} />
      {current && (
        <WhatIf clusterId={id} namespace={namespace} name={name} zones={current.zones} routing={current.routing} />
      )}
    </>
  );
}

function Fixes({ fixes }: { fixes: Recommendation[] | undefined }) {
  if (!fixes || fixes.length === 0) return <Empty>None: the Service routes in-zone or cannot gain from it.</Empty>;
  return (
    <ol className="fixes" data-testid="fixes">
      {fixes.map((fix, index) => (
        <li key={`${fix.kind}-${index}`} className="panel" data-fix={fix.kind}>
          <p>
            <span className="badge">{fix.kind}</span> {fix.summary}
          </p>
          <dl className="facts">
            <dt>Then</dt>
            <dd data-testid="fix-state">
              hints{' '}
              <span
                className={fix.resultingState === 'populated' ? 'ok' : fix.resultingState === 'removed' ? 'bad' : ''}
              >
                {fix.resultingState}
              </span>
              {fix.reason ? ` (${fix.reason})` : ''}; {percent(fix.crossZone.withHints)} across zones
            </dd>
            <dt>Saves a month</dt>
            <dd data-testid="fix-savings">
              {money(fix.savings.cost)} ({gb(fix.savings.crossZoneGb)})
            </dd>
            <dt>Expected overload</dt>
            <dd data-testid="fix-overload">
              {Object.entries(fix.expectedOverload)
                .map(([zone, overload]) => `${zone} ${percent(overload)}`)
                .join(', ') || '—'}
              {fix.overloadAboveThreshold && <strong className="bad"> — a zone above 20 %</strong>}
            </dd>
          </dl>
          <CopyableCode text={fix.patch} label={`the change for the ${fix.kind} fix`} />
        </li>
      ))}
    </ol>
  );
}

function proxyWords(view: ServiceDetail['kubeProxy']['zones'][number]['observed']): string {
  const reached = Object.entries(view.endpointsByZone)
    .map(([zone, count]) => `${count} in ${zone}`)
    .join(', ');
  const filter = view.topologyFiltered
    ? 'zone hints applied'
    : `no zone filter${view.reason ? ` (${view.reason})` : ''}`;
  return `${view.endpoints ?? 0} endpoints reached${reached ? `: ${reached}` : ''} · ${filter}`;
}

function ZonesChart({ zones }: { zones: ZoneAllocation[] }) {
  const option = {
    tooltip: { trigger: 'axis' },
    legend: { bottom: 0 },
    grid: { left: 40, right: 50, bottom: 60, top: 40 },
    xAxis: { type: 'category', data: zones.map((zone) => zone.zone) },
    yAxis: [
      { type: 'value', name: 'endpoints', minInterval: 1 },
      { type: 'value', name: 'overload', axisLabel: { formatter: '{value} %' } },
    ],
    series: [
      { name: 'minimum', type: 'bar', data: zones.map((zone) => zone.minimum) },
      { name: 'desired', type: 'bar', data: zones.map((zone) => zone.desired) },
      { name: 'maximum', type: 'bar', data: zones.map((zone) => zone.maximum) },
      { name: 'allocated', type: 'bar', data: zones.map((zone) => zone.allocated) },
      {
        name: 'expected overload',
        type: 'line',
        yAxisIndex: 1,
        data: zones.map((zone) => Math.round(zone.expectedOverload * 1000) / 10),
        markLine: { silent: true, data: [{ yAxis: 20, name: 'limit' }], lineStyle: { type: 'dashed' } },
      },
    ],
  };
  return (
    <div className="grid2">
      <Chart
        option={option}
        label="per zone: minimum, desired, maximum and allocated endpoints, and the expected overload"
      />
      <TableScroll label="per-zone endpoints">
        <table className="data" data-testid="zones">
          <thead>
            <tr>
              <th scope="col">Zone</th>
              <th scope="col" className="num">
                Minimum
              </th>
              <th scope="col" className="num">
                Desired
              </th>
              <th scope="col" className="num">
                Maximum
              </th>
              <th scope="col" className="num">
                Allocated
              </th>
              <th scope="col" className="num">
                Expected overload
              </th>
            </tr>
          </thead>
          <tbody>
            {zones.map((zone) => (
              <tr key={zone.zone}>
                <td>{zone.zone}</td>
                <td className="num">{number(zone.minimum)}</td>
                <td className="num">{number(zone.desired)}</td>
                <td className="num">{number(zone.maximum)}</td>
                <td className="num">{number(zone.allocated)}</td>
                <td className="num">{percent(zone.expectedOverload)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </div>
  );
}

/**
 * The states over the range, each at its place in time: a Service created (or gone) during the range
 * leaves the rest of the strip empty, so a state never reads as older than it is.
 */
function Timeline({ timeline }: { timeline: ServiceDetail['timeline'] }) {
  const start = Date.parse(timeline.from);
  const end = Date.parse(timeline.to);
  const span = Math.max(1, end - start);
  if (timeline.entries.length === 0) return <Empty>No recorded state in this range.</Empty>;
  return (
    <>
      <p data-testid="flapping">
        {timeline.changes} change{timeline.changes === 1 ? '' : 's'}, {timeline.hintStateChanges} of the hint state
        {timeline.flapping ? <strong className="bad"> — flapping</strong> : ''}
        {timeline.truncated ? ' (only the newest intervals shown)' : ''}
      </p>
      <div className="timeline" role="list" aria-label="states over the range">
        {timeline.entries.map((entry) => {
          const from = Math.max(start, Date.parse(entry.from));
          const to = Math.min(end, entry.to ? Date.parse(entry.to) : end);
          const label = `${entry.hints.state}${entry.hints.reason ? ` (${entry.hints.reason})` : ''}, routing ${entry.routing}, ${entry.readyEndpoints} endpoints, ${when(entry.from)} – ${entry.to ? when(entry.to) : 'now'}`;
          return (
            <span
              key={entry.from}
              role="listitem"
              tabIndex={0}
              className={`state-${entry.hints.state}`}
              style={{ left: `${((from - start) / span) * 100}%`, width: `${((to - from) / span) * 100}%` }}
              title={label}
              aria-label={label}
            />
          );
        })}
      </div>
      <div className="legend">
        <span>
          <i className="state-populated" />
          populated
        </span>
        <span>
          <i className="state-removed" />
          refused
        </span>
        <span>
          <i className="state-none" />
          no routing
        </span>
        <span>
          {when(timeline.from)} → {when(timeline.to)}
        </span>
      </div>
    </>
  );
}

interface SimulatedService {
  hints: { state: string; reason: string | null };
  routing: { mode?: string | null } & Record<string, unknown>;
  readyEndpoints: number;
  crossZone: { withoutHints: number; withHints: number };
  zones: Record<string, Omit<ZoneAllocation, 'zone'>>;
}

function WhatIf(props: {
  clusterId: string;
  namespace: string;
  name: string;
  zones: ZoneAllocation[];
  routing: string;
}) {
  const [mode, setMode] = useState('');
  const [deltas, setDeltas] = useState<Record<string, string>>({});
  const simulate = useMutation({
    mutationFn: (body: unknown) =>
      request<{ capturedAt: string; analysis: { services: SimulatedService[] } }>(
        'POST',
        `/v1/clusters/${props.clusterId}/simulate`,
        body,
      ),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    const service = { namespace: props.namespace, name: props.name };
    const scaleReplicas = Object.entries(deltas)
      .filter(([, delta]) => Number(delta) !== 0 && delta.trim() !== '')
      .map(([zone, delta]) => ({ ...service, zone, delta: Number(delta) }));
    simulate.mutate({
      whatIf: {
        ...(mode ? { enableRouting: [{ ...service, mode }] } : {}),
        ...(scaleReplicas.length ? { scaleReplicas } : {}),
      },
      services: [service],
    });
  }

  const result = simulate.data?.analysis.services[0];
  return (
    <section className="panel" aria-labelledby="what-if">
      <h2 id="what-if" style={{ marginTop: 0 }}>
        What if…
      </h2>
      <p className="muted small">Answered on the cluster's newest stored snapshot; nothing is changed.</p>
      <form className="controls" onSubmit={submit}>
        <label>
          Routing mode
          <select value={mode} onChange={(event) => setMode(event.target.value)} name="mode">
            <option value="">as now ({props.routing})</option>
            {['Auto', 'PreferClose', 'PreferSameZone', 'PreferSameNode', 'None'].map((option) => (
              <option key={option}>{option}</option>
            ))}
          </select>
        </label>
        {props.zones.map((zone) => (
          <label key={zone.zone}>
            Endpoints to add in {zone.zone}
            <input
              type="number"
              step={1}
              value={deltas[zone.zone] ?? ''}
              placeholder="0"
              onChange={(event) => setDeltas({ ...deltas, [zone.zone]: event.target.value })}
              name={`delta-${zone.zone}`}
              style={{ width: '6rem' }}
            />
          </label>
        ))}
        <button type="submit" className="primary" disabled={simulate.isPending}>
          {simulate.isPending ? 'Simulating…' : 'Simulate'}
        </button>
      </form>
      {simulate.isError && (
        <ErrorBox
          error={simulate.error}
          title={simulate.error instanceof ApiError ? 'The what-if was refused' : 'The what-if failed'}
        />
      )}
      {result && (
        <div data-testid="what-if-result">
          <p>
            <strong>Then:</strong> hints{' '}
            <span className={result.hints.state === 'removed' ? 'bad' : result.hints.state === 'populated' ? 'ok' : ''}>
              {result.hints.state}
            </span>
            {result.hints.reason ? ` (${result.hints.reason})` : ''}; {result.readyEndpoints} ready endpoints;
            cross-zone share {percent(result.crossZone.withHints)} (without hints{' '}
            {percent(result.crossZone.withoutHints)}).
          </p>
          <TableScroll label="what-if per zone">
            <table className="data">
              <thead>
                <tr>
                  <th scope="col">Zone</th>
                  <th scope="col" className="num">
                    Minimum
                  </th>
                  <th scope="col" className="num">
                    Allocated now → then
                  </th>
                  <th scope="col" className="num">
                    Expected overload then
                  </th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(result.zones).map(([zone, figures]) => (
                  <tr key={zone}>
                    <td>{zone}</td>
                    <td className="num">{number(figures.minimum)}</td>
                    <td className="num">
                      {number(props.zones.find((z) => z.zone === zone)?.allocated)} → {number(figures.allocated)}
                    </td>
                    <td className="num">{percent(figures.expectedOverload)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        </div>
      )}
    </section>
  );
}
