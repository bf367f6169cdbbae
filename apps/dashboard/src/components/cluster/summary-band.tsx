import { ago, money, number, percent } from '../../format';
import { useNow } from '../freshness';
import type { FleetClusterAnswer } from '../../types';
import { HINT_STATE_WORDS } from '../../vocabulary';
import { HintBar } from '../hint-bar';
import { Tile } from '../tile';

type Cluster = FleetClusterAnswer['cluster'];

function inputsOf(cluster: Cluster): string {
  const monthly = cluster.monthly!;
  return (
    `${number(monthly.trafficGb)} GB a month; ${monthly.servicesWithEstimatedTraffic} Services on the per-endpoint default volume; ` +
    `measured share ${percent(monthly.measuredShare)}; ${monthly.pricing.pricePerGb} USD/GB (${monthly.pricing.source})`
  );
}

/**
 * The cluster at a glance, above everything else: what its cross-zone traffic costs a month at today's
 * rate, what topology routing saves and misses, what is at stake where hints are refused, its Services by
 * hint state, and whether its agent is current (`GET /v1/fleet/clusters/{id}`, the fleet's figures).
 */
export function SummaryBand({ cluster }: { cluster: Cluster }) {
  const monthly = cluster.monthly;
  const counts = cluster.services;
  const total = counts.populated + counts.removed + counts.none;
  const snapshot = cluster.lastSnapshot;
  const now = useNow();
  return (
    <section className="tiles band-summary" aria-label="the cluster at a glance" data-testid="summary-band">
      <Tile
        label="Cost a month"
        value={money(monthly?.withHints.cost)}
        testId="band-cost"
        estimate={monthly?.estimate}
        inputs={monthly ? inputsOf(cluster) : undefined}
      >
        {monthly
          ? `as routed today (run-rate); ${money(monthly.withoutHints.cost)} without any hints`
          : 'no analysis yet'}
      </Tile>
      <Tile label="Saved a month" value={money(monthly?.realizedSavings.cost)} testId="band-saved">
        run-rate: what topology routing saves at today's traffic
      </Tile>
      <Tile label="Missed a month" value={money(monthly?.missedSavings.cost)} testId="band-missed">
        {monthly ? `${number(monthly.opportunities)} Services where enabling routing would populate hints` : '—'}
      </Tile>
      <Tile label="At stake a month" value={money(monthly?.atStake?.cost)} testId="band-at-stake">
        {monthly?.atStake
          ? `${number(monthly.atStake.services)} Services ask for routing but their hints are ${HINT_STATE_WORDS.removed}`
          : '—'}
      </Tile>
      <Tile label="Services by hint state" value={number(total)} testId="band-states">
        <HintBar counts={counts} />
        <div data-testid="band-state-counts">
          {number(counts.populated)} {HINT_STATE_WORDS.populated} · {number(counts.removed)} {HINT_STATE_WORDS.removed}{' '}
          · {number(counts.none)} {HINT_STATE_WORDS.none}
        </div>
      </Tile>
      <Tile
        label="Agent"
        value={
          snapshot ? (
            <span className={snapshot.stale ? 'bad' : ''}>{snapshot.stale ? 'stale' : 'current'}</span>
          ) : (
            <span className="bad">no snapshot yet</span>
          )
        }
        testId="band-agent"
      >
        {snapshot
          ? `last snapshot ${ago(now - Date.parse(snapshot.capturedAt))} (${snapshot.status})${
              snapshot.stale ? ': is the agent running?' : ''
            }`
          : 'install the agent with the line the Admin page shows'}
        {cluster.servicesWithDrift ? ` · ${number(cluster.servicesWithDrift)} Services with drift` : ''}
      </Tile>
    </section>
  );
}
