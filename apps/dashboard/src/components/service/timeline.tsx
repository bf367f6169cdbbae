import { when } from '../../format';
import { hourOf, timeTicks } from '../../time-ticks';
import type { ServiceDetail } from '../../types';
import { hintStateWord } from '../../vocabulary';
import { Empty } from '../states';

/**
 * The states over the range, each at its place in time, with time ticks (UTC) under the strip. Fitted
 * (the default), the strip starts at the Service's first recorded state in the range, so a Service
 * created today fills it; over a chosen range, a Service created (or gone) during it leaves the rest of
 * the strip empty, so a state never reads as older than it is.
 */
export function Timeline({ timeline, fit }: { timeline: ServiceDetail['timeline']; fit: boolean }) {
  if (timeline.entries.length === 0) return <Empty>No recorded state in this range.</Empty>;
  const asked = Date.parse(timeline.from);
  const end = Date.parse(timeline.to);
  const start = fit ? Math.max(asked, hourOf(Date.parse(timeline.entries[0].from))) : asked;
  const span = Math.max(1, end - start);
  const place = (at: number) => `${((at - start) / span) * 100}%`;
  return (
    <>
      <p data-testid="flapping">
        {timeline.changes} change{timeline.changes === 1 ? '' : 's'}, {timeline.hintStateChanges} of the hint state
        {timeline.flapping ? <strong className="bad"> — flapping</strong> : ''}
        {timeline.truncated ? ' (only the newest intervals shown)' : ''}
      </p>
      <div
        className="timeline"
        role="list"
        aria-label="states over the range"
        data-start={new Date(start).toISOString()}
      >
        {timeline.entries.map((entry) => {
          const from = Math.max(start, Date.parse(entry.from));
          const to = Math.min(end, entry.to ? Date.parse(entry.to) : end);
          const label = `${hintStateWord(entry.hints.state)}${entry.hints.reason ? ` (${entry.hints.reason})` : ''}, routing ${entry.routing}, ${entry.readyEndpoints} endpoints, ${when(entry.from)} – ${entry.to ? when(entry.to) : 'now'}`;
          return (
            <span
              key={entry.from}
              role="listitem"
              tabIndex={0}
              className={`state-${entry.hints.state}`}
              style={{ left: place(from), width: `${((to - from) / span) * 100}%` }}
              title={label}
              aria-label={label}
            />
          );
        })}
      </div>
      <div className="ticks" aria-hidden="true" data-testid="timeline-ticks">
        {timeTicks(start, end).map((tick) => (
          <span
            key={tick.at}
            className={tick.at - start < span * 0.06 ? 'first' : end - tick.at < span * 0.06 ? 'last' : ''}
            style={{ left: place(tick.at) }}
            data-at={new Date(tick.at).toISOString()}
          >
            {tick.label}
          </span>
        ))}
      </div>
      <div className="legend">
        <span>
          <i className="state-populated" />
          {hintStateWord('populated')}
        </span>
        <span>
          <i className="state-removed" />
          {hintStateWord('removed')}
        </span>
        <span>
          <i className="state-none" />
          {hintStateWord('none')}
        </span>
        <span>
          {when(new Date(start).toISOString())} → {when(timeline.to)} (times in UTC)
        </span>
      </div>
    </>
  );
}
