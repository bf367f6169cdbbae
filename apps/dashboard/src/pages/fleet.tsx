import { useQuery } from '@tanstack/react-query';
import { useDeferredValue } from 'react';
import { Link } from 'wouter';
import { ClustersTable } from '../components/clusters-table';
import { TrendCharts } from '../components/trends';
import { ErrorBox, Loading } from '../components/states';
import { Tile } from '../components/tile';
import { isAdmin } from '../auth';
import { useIdentity } from '../identity';
import { HINT_STATE_WORDS, RUN_RATE } from '../vocabulary';
import { fleetQuery } from '../critical-queries';
import { Freshness } from '../components/freshness';
import { gb, money, number, percent } from '../format';
import type { Fleet as FleetAnswer } from '../types';

function fleetInputs(fleet: FleetAnswer): string {
  const estimated = fleet.clusters.reduce(
    (sum, cluster) => sum + (cluster.monthly?.servicesWithEstimatedTraffic ?? 0),
    0,
  );
  const prices = [
    ...new Set(
      fleet.clusters.flatMap((c) =>
        c.monthly ? [`${c.monthly.pricing.pricePerGb} USD/GB (${c.monthly.pricing.source})`] : [],
      ),
    ),
  ];
  return (
    `${number(fleet.totals.monthly.trafficGb)} GB a month over ${fleet.totals.clusters} clusters; ` +
    `${estimated} Services on the per-endpoint default volume; measured share ${percent(fleet.totals.monthly.measuredShare)}; ` +
    `prices: ${prices.join(', ') || 'none yet'}`
  );
}

function atStakeInputs(fleet: FleetAnswer): string {
  const atStake = fleet.totals.monthly.atStake;
  return (
    `${atStake.services} Services ask for topology routing but their hints were refused: ` +
    `${number(atStake.trafficGb)} GB a month of their traffic (${atStake.servicesWithEstimatedTraffic} on the per-endpoint default volume), ` +
    `${number(atStake.crossZoneGb)} GB of it crossing zones as routed today; the most fixing the causes could save. ` +
    fleetInputs(fleet)
  );
}

export default function FleetPage() {
  const fleet = useQuery(fleetQuery);
  const identity = useIdentity();
  // The clusters' rows are drawn in the commit the answer arrives in; the trends (their own request and
  // the chart library) start after it, so they never hold the table up.
  const secondary = useDeferredValue(fleet.data !== undefined);

  if (!fleet.data) {
    return fleet.isError ? (
      <ErrorBox error={fleet.error} title="The fleet could not be loaded" retry={() => fleet.refetch()} />
    ) : (
      <Loading what="the fleet" />
    );
  }
  const data = fleet.data;
  if (data.clusters.length === 0) return <FirstCluster admin={isAdmin(identity.data)} />;
  const totals = data.totals.monthly;
  const estimate = data.clusters.some((cluster) => cluster.monthly?.estimate);
  const inputs = fleetInputs(data);

  return (
    <>
      <h1>Fleet</h1>
      <p className="muted">
        {number(data.totals.clusters)} clusters, {number(data.totals.staleClusters)} without a recent snapshot ·{' '}
        <Freshness query={fleet} />
      </p>
      <section className="tiles" aria-label="monthly figures at today's rate">
        <Tile
          label={`Cost a month (${RUN_RATE})`}
          value={money(totals.withHints.cost)}
          testId="tile-cost"
          estimate={estimate}
          inputs={inputs}
        >
          as routed today; {money(totals.withoutHints.cost)} without any hints
        </Tile>
        <Tile
          label={`Saved a month (${RUN_RATE})`}
          value={money(totals.realizedSavings.cost)}
          testId="tile-saved"
          estimate={estimate}
          inputs={inputs}
        >
          what topology routing saves at today's traffic, {number(totals.realizedSavings.crossZoneGb)} GB a month kept
          in-zone; <Link href="/savings">Savings</Link> has what it saved so far
        </Tile>
        <Tile
          label={`Missed a month (${RUN_RATE})`}
          value={money(totals.missedSavings.cost)}
          testId="tile-missed"
          estimate={estimate}
          inputs={inputs}
        >
          if routing were enabled where hints would be populated
        </Tile>
        <Tile
          label={`At stake a month (hints ${HINT_STATE_WORDS.removed})`}
          value={money(totals.atStake.cost)}
          testId="tile-at-stake"
          estimate={totals.atStake.estimate}
          inputs={atStakeInputs(data)}
        >
          <span data-testid="at-stake-services">{number(totals.atStake.services)}</span> Services with routing enabled
          whose hints the controller {HINT_STATE_WORDS.removed}: at most this much could be saved
        </Tile>
      </section>
      <MeasuredShare totals={totals} />
      <ZeroPrices clusters={data.clusters} />
      <h2>Clusters</h2>
      <ClustersTable clusters={data.clusters} />
      <h2>Trends</h2>
      {secondary ? <TrendCharts path="/v1/fleet/trends" /> : <Loading what="trends" />}
    </>
  );
}

/** An organization without a cluster: what to do first, instead of figures that are all zero. */
function FirstCluster({ admin }: { admin: boolean }) {
  return (
    <>
      <h1>Fleet</h1>
      <section className="panel first-run" data-testid="first-cluster">
        <h2>Register your first cluster</h2>
        {admin ? (
          <ol>
            <li>
              On the <Link href="/admin">Admin</Link> page, register the cluster (its name, cloud and region).
            </li>
            <li>Run the helm line it shows in the cluster: the agent sends its first snapshot within a minute.</li>
            <li>Come back here: the cluster's Services, costs and fixes appear as soon as it is processed.</li>
          </ol>
        ) : (
          <p>
            No cluster yet. An admin of your organization registers one on the Admin page and installs the agent with
            the line it shows; its figures appear here as soon as its first snapshot is processed.
          </p>
        )}
      </section>
    </>
  );
}

/**
 * A cloud that does not charge for traffic between zones (Azure) makes every cost of its clusters
 * $0.00: said once, so a zero reads as the price and not as a missing figure.
 */
function ZeroPrices({ clusters }: { clusters: FleetAnswer['clusters'] }) {
  const free = clusters.filter((cluster) => cluster.monthly?.pricing.pricePerGb === 0);
  if (free.length === 0) return null;
  const notes = [...new Set(free.map((cluster) => cluster.monthly!.pricing.note))];
  return (
    <p className="notice" data-testid="zero-prices">
      {number(free.length)} cluster{free.length === 1 ? '' : 's'} (
      {free
        .map((cluster) => cluster.name)
        .slice(0, 5)
        .join(', ')}
      {free.length > 5 ? ', …' : ''}) {free.length === 1 ? 'is' : 'are'} priced at 0 USD per cross-zone GB, so their
      costs and savings are $0.00: {notes.join('; ')}.
    </p>
  );
}

/** How much of the traffic behind the fleet's dollar figures was measured by traffic sources. */
function MeasuredShare({ totals }: { totals: FleetAnswer['totals']['monthly'] }) {
  return (
    <p className="muted small" data-testid="fleet-measured-share">
      Traffic behind these figures: {percent(totals.measuredShare)} measured ({gb(totals.measuredTrafficGb)} of{' '}
      {gb(totals.trafficGb)} a month), the rest estimated. Cost as routed: {money(totals.measured.withHints.cost)} of{' '}
      {money(totals.withHints.cost)} a month measured ({percent(totals.measured.withHintsCostShare)}, volume and
      cross-zone share of {totals.measured.services} Services), the rest estimated.
    </p>
  );
}
