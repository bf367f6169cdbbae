import { number, percent } from '../format';
import type { ServiceCidrs } from '../types';

const amount = (value: number | string) => (typeof value === 'number' ? value : Number(value) || 0);

/**
 * One bar per Service CIDR: its static band (addresses for fixed ClusterIPs) then its dynamic band, each
 * filled as far as it is allocated; static IPs sitting in the dynamic band and well-known addresses listed.
 */
export function CidrBands({ cidrs }: { cidrs: ServiceCidrs['serviceCIDRs'] }) {
  return (
    <>
      {cidrs.map((cidr) => {
        const staticSize = cidr.allocated.static + amount(cidr.free.static);
        const dynamicSize = cidr.allocated.dynamic + amount(cidr.free.dynamic);
        const total = Math.max(1, staticSize + dynamicSize);
        // A band of a few addresses still gets a visible sliver.
        const share = (value: number) => `${Math.max(value > 0 ? 1 : 0, (value / total) * 100)}%`;
        return (
          <div key={cidr.cidr} className="panel" data-testid="cidr">
            <strong>{cidr.cidr}</strong> ({cidr.family}) · {percent(cidr.utilization)} used ·{' '}
            {number(cidr.allocated.total)} allocated
            <div
              className="band"
              role="img"
              aria-label={`static band ${cidr.allocated.static} of ${staticSize} allocated, dynamic band ${cidr.allocated.dynamic} of ${dynamicSize} allocated`}
            >
              <span className="static" style={{ width: share(staticSize) }}>
                <span
                  style={{
                    display: 'block',
                    height: '100%',
                    width: `${(cidr.allocated.static / Math.max(1, staticSize)) * 100}%`,
                    background: '#0969da',
                  }}
                />
              </span>
              <span className="dynamic" style={{ width: share(dynamicSize) }}>
                <span
                  style={{
                    display: 'block',
                    height: '100%',
                    width: `${(cidr.allocated.dynamic / Math.max(1, dynamicSize)) * 100}%`,
                    background: '#bf8700',
                  }}
                />
              </span>
            </div>
            <div className="legend">
              <span>
                <i style={{ background: '#0969da' }} />
                static band {cidr.staticBand ? `${cidr.staticBand.first}–${cidr.staticBand.last}` : '(none)'}:{' '}
                {cidr.allocated.static} allocated, {String(cidr.free.static)} free
              </span>
              <span>
                <i style={{ background: '#bf8700' }} />
                dynamic band {cidr.dynamicBand ? `${cidr.dynamicBand.first}–${cidr.dynamicBand.last}` : '(none)'}:{' '}
                {cidr.allocated.dynamic} allocated, {String(cidr.free.dynamic)} free
              </span>
            </div>
            {cidr.risks.length > 0 && (
              <p className="notice">
                {cidr.risks.length} static IP{cidr.risks.length === 1 ? '' : 's'} in the dynamic band:{' '}
                {cidr.risks.map((risk) => `${risk.ip}${risk.service ? ` (${risk.service})` : ''}`).join(', ')}
              </p>
            )}
            {cidr.conflicts.map((conflict) => (
              <p key={`${conflict.kind}-${conflict.ip}`} className="error">
                {conflict.message}
              </p>
            ))}
            {cidr.wellKnown.length > 0 && (
              <p className="small">
                Well-known addresses:{' '}
                {cidr.wellKnown
                  .map(
                    (known) =>
                      `${known.ip} ${known.purpose} — ${known.free ? 'free' : `held by ${known.heldBy.join(', ') || 'someone'}`}`,
                  )
                  .join('; ')}
              </p>
            )}
          </div>
        );
      })}
    </>
  );
}
