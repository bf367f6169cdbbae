import { gb, money, percent } from '../../format';
import type { Recommendation } from '../../types';
import { CopyableCode } from '../copyable-code';
import { Empty } from '../states';
import { HintStateWord } from '../hint-state';

/** The Service's recommended fixes, best first, each with its figures and the change to apply. */
export function Fixes({ fixes }: { fixes: Recommendation[] | undefined }) {
  if (!fixes || fixes.length === 0) return <Empty>None: the Service routes in-zone or cannot gain from it.</Empty>;
  return (
    <ol className="fixes" data-testid="fixes">
      {fixes.map((fix, index) => (
        <li key={`${fix.kind}-${index}`} className="panel" data-fix={fix.kind}>
          <p>
            <span className="badge">{fix.kind}</span> {fix.summary}
          </p>
          <dl className="facts">
            <dt>Then</dt>
            <dd data-testid="fix-state">
              hints <HintStateWord state={fix.resultingState} />
              {fix.reason ? ` (${fix.reason})` : ''}; {percent(fix.crossZone.withHints)} across zones
            </dd>
            <dt>Saves a month</dt>
            <dd data-testid="fix-savings">
              {money(fix.savings.cost)} ({gb(fix.savings.crossZoneGb)})
            </dd>
            <dt>Expected overload</dt>
            <dd data-testid="fix-overload">
              {Object.entries(fix.expectedOverload)
                .map(([zone, overload]) => `${zone} ${percent(overload)}`)
                .join(', ') || '—'}
              {fix.overloadAboveThreshold && <strong className="bad"> — a zone above 20 %</strong>}
            </dd>
          </dl>
          <CopyableCode text={fix.patch} label={`the change for the ${fix.kind} fix`} />
        </li>
      ))}
    </ol>
  );
}
