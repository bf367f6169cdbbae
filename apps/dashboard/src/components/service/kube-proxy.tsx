import type { ServiceDetail } from '../../types';
import { Empty } from '../states';
import { TableScroll } from '../table-scroll';

type KubeProxy = ServiceDetail['kubeProxy'];

function proxyWords(view: ServiceDetail['kubeProxy']['zones'][number]['observed']): string {
  const reached = Object.entries(view.endpointsByZone)
    .map(([zone, count]) => `${count} in ${zone}`)
    .join(', ');
  const filter = view.topologyFiltered
    ? 'zone hints applied'
    : `no zone filter${view.reason ? ` (${view.reason})` : ''}`;
  return `${view.endpoints ?? 0} endpoints reached${reached ? `: ${reached}` : ''} · ${filter}`;
}

/** What kube-proxy on one node of each zone reaches, with the observed hints and with the computed ones. */
export function KubeProxyView({ kubeProxy }: { kubeProxy: KubeProxy }) {
  if (!kubeProxy.available) return <Empty>Not available: {kubeProxy.reason}</Empty>;
  return (
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
          {kubeProxy.zones.map((zone) => (
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
  );
}

/** Endpoints whose observed hints differ from the ones zonewise computes. */
export function Drift({ drift }: { drift: ServiceDetail['drift'] }) {
  return (
    <p data-testid="drift">
      {!drift.available
        ? 'Not available without the newest raw snapshot.'
        : drift.endpoints === 0
          ? 'None: the hints in the cluster are the ones zonewise computes.'
          : `${drift.endpoints} endpoint${drift.endpoints === 1 ? '' : 's'} whose observed hints differ from the computed ones${drift.observedHints === false ? ' (the cluster has no hints on this Service)' : ''}.`}
    </p>
  );
}
