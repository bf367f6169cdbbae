import type { HintCounts } from '../types';

/** Services by hint state as one stacked bar (populated, refused, no routing), with the counts in words. */
export function HintBar({ counts }: { counts: HintCounts }) {
  const total = counts.populated + counts.removed + counts.none;
  const words = `${counts.populated} routed in-zone, ${counts.removed} refused, ${counts.none} without routing`;
  if (total === 0) return <span className="muted">no Services</span>;
  const width = (value: number) => `${(value / total) * 100}%`;
  return (
    <span className="hint-bar" role="img" aria-label={words} title={words}>
      <span className="populated" style={{ width: width(counts.populated) }} />
      <span className="removed" style={{ width: width(counts.removed) }} />
      <span className="none" style={{ width: width(counts.none) }} />
    </span>
  );
}
