import { number, percent } from '../../format';
import type { ZoneAllocation } from '../../types';
import { Chart } from '../chart';
import { TableScroll } from '../table-scroll';

/** Per zone: minimum, desired, maximum and allocated endpoints, and the expected overload (20 % line). */
export function ZonesChart({ zones }: { zones: ZoneAllocation[] }) {
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
