import { number, percent } from '../../format';
import type { Zones } from '../../types';
import { Chart } from '../chart';
import { Empty } from '../states';
import { TableScroll } from '../table-scroll';

/** Per zone: CPU share against the shares of ready and hinted endpoints, and the expected overload. */
export function ZonesPanel({ zones }: { zones: Zones }) {
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
