import { ago, gb, money, percent, when } from '../../format';
import { explainState } from '../../explain';
import { inputsText } from '../../cost-inputs';
import type { ServiceDetail } from '../../types';
import { useNow } from '../freshness';
import { EstimateBadge } from '../states';
import { TrafficBasis } from '../traffic-basis';
import { HintStateWord } from '../hint-state';

/**
 * The Service's state in plain words with the numbers behind it, since when its hint state holds (the
 * first snapshot of the run, not its newest change), its cost with the inputs, the measured traffic,
 * who writes its slices and whether its data path honours the hints. A measured cross-zone share is the
 * one the cost uses; the model's stays beside it, and a measurement contradicting the verdict is flagged.
 */
export function StatePanel({ current }: { current: NonNullable<ServiceDetail['current']> }) {
  const now = useNow(60_000);
  const inputs = current.monthly.inputs;
  return (
    <section className="panel" data-testid="state">
      <h2 style={{ marginTop: 0 }}>
        State: <HintStateWord state={current.hints.state} />{' '}
        <span className="muted small" data-testid="state-since">
          since {when(current.hintStateSince)} ({ago(now - Date.parse(current.hintStateSince))})
        </span>
      </h2>
      {explainState(current).map((line) => (
        <p key={line}>{line}</p>
      ))}
      <dl className="facts">
        <dt>Cross-zone share</dt>
        <dd data-testid="service-cross-zone">
          {inputs.measuredCrossZone === null
            ? `${percent(current.crossZone.withHints)} as routed (modelled)`
            : `${percent(inputs.measuredCrossZone)} as routed (measured; the model says ${percent(inputs.modelCrossZone)})`}
          , {percent(current.crossZone.withoutHints)} without hints (modelled)
        </dd>
        {current.contradiction && (
          <>
            <dt>Measurement contradicts the verdict</dt>
            <dd className="bad" data-testid="service-contradiction">
              {current.contradiction.reason}
            </dd>
          </>
        )}
        <dt>Cost a month</dt>
        <dd data-testid="service-cost">
          {money(current.monthly.withHints.cost)} as routed; saved {money(current.monthly.realizedSavings.cost)}
          {current.monthly.missedSavings && `; missed ${money(current.monthly.missedSavings.cost)}`}{' '}
          {current.monthly.inputs.estimate && <EstimateBadge inputs={inputsText(current)} />}
          <TrafficBasis measuredShare={current.monthly.inputs.trafficSource === 'measured' ? 1 : 0} />
        </dd>
        <dt>Inputs</dt>
        <dd className="small" data-testid="service-inputs">
          {inputsText(current)}
        </dd>
        <dt>Measured traffic</dt>
        <dd data-testid="service-measured">
          {current.measured
            ? `${gb(current.measured.trafficGb)} a month, ${
                current.measured.crossZone === null
                  ? 'cross-zone share not measured (the source sees no zones)'
                  : `${percent(current.measured.crossZone)} across zones`
              }`
            : 'none: no traffic source measures this Service, so its volume is estimated'}
        </dd>
        {typeof current.modelVsMeasured?.measured.cost === 'number' && (
          <>
            <dt>Measured cost</dt>
            <dd data-testid="service-measured-cost">
              {money(current.modelVsMeasured.measured.cost)} a month at the measured cross-zone share (the cost above
              uses it)
            </dd>
            <dt>Model's cost</dt>
            <dd data-testid="service-model-cost">
              {money(inputs.trafficGb * inputs.modelCrossZone * inputs.pricePerGb)} a month at the modelled{' '}
              {percent(inputs.modelCrossZone)} (estimated, shown beside the measurement)
            </dd>
          </>
        )}
        {current.managedBy && (
          <>
            <dt>Slices written by</dt>
            <dd data-testid="managed-by">
              {current.managedBy}
              {current.managedBy !== 'endpointslice-controller' && (
                <span className="muted small"> (not the EndpointSlice controller: zonewise computes no hints)</span>
              )}
            </dd>
          </>
        )}
        {current.dataPath && (
          <>
            <dt>Data path</dt>
            <dd data-testid="data-path">
              {current.dataPath.honoursHints ? (
                <span className="ok">honours the hints</span>
              ) : (
                <>
                  <span className="bad">ignores the hints, so they change nothing</span>
                  {current.dataPath.reason && `: ${current.dataPath.reason}`}
                </>
              )}
            </dd>
          </>
        )}
      </dl>
    </section>
  );
}
