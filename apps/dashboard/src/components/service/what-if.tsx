import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError, request } from '../../api';
import { number, percent } from '../../format';
import type { ClusterSimulation, ZoneAllocation } from '../../types';
import { ErrorBox } from '../states';
import { TableScroll } from '../table-scroll';
import { HintStateWord } from '../hint-state';

/** A routing mode and endpoints added or removed per zone, answered on the newest stored snapshot. */
export function WhatIf(props: {
  clusterId: string;
  namespace: string;
  name: string;
  zones: ZoneAllocation[];
  routing: string;
}) {
  const [mode, setMode] = useState('');
  const [deltas, setDeltas] = useState<Record<string, string>>({});
  const simulate = useMutation({
    mutationFn: (body: unknown) => request<ClusterSimulation>('POST', `/v1/clusters/${props.clusterId}/simulate`, body),
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
            <strong>Then:</strong> hints <HintStateWord state={result.hints.state} />
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
