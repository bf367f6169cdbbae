import { Link } from 'wouter';
import { gb, money, number } from '../../format';
import type { NodeBlockers, ServiceFixes } from '../../types';
import { CopyableCode } from '../copyable-code';
import { Empty, EstimateBadge } from '../states';
import { TrafficBasis } from '../traffic-basis';

/** The fixes ranked by what they save a month: the cluster's cheapest money first. */
export function TopFixes({ clusterId, services }: { clusterId: string; services: ServiceFixes[] }) {
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

/** The nodes whose missing zone label or CPU turns hints off for the whole cluster, and the commands that fix them. */
export function BlockingNodes({ blockers }: { blockers: NodeBlockers }) {
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
