import { percent } from '../format';

const WHY =
  "measured: the volume and cross-zone share come from the cluster's traffic source; estimated: a declared " +
  'or default volume with the modelled cross-zone share';

/**
 * Says beside a dollar figure whether the traffic behind it was measured or estimated: `measuredShare` is
 * the measured part of its volume (1 all measured, 0 or null none).
 */
export function TrafficBasis({ measuredShare }: { measuredShare: number | null | undefined }) {
  const share = measuredShare ?? 0;
  const basis = share >= 1 ? 'measured' : share <= 0 ? 'estimated' : 'partly measured';
  return (
    <div className="muted small" data-traffic={basis} title={WHY}>
      {basis === 'partly measured' ? `traffic ${percent(share)} measured` : `${basis} traffic`}
    </div>
  );
}
