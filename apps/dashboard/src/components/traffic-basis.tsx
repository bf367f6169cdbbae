import { percent } from '../format';

const WHY =
  "measured: the cluster's traffic source measured the volume behind this figure; estimated: a volume " +
  'declared through the API or an annotation, or the per-endpoint default. The cross-zone share in the ' +
  "figure is the model's either way (a Service's page shows the measured share beside it).";

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
