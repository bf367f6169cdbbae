import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { ClustersTable } from '../components/clusters-table';
import { TrendCharts } from '../components/trends';
import { Empty, ErrorBox, EstimateBadge, Loading } from '../components/states';
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

  if (!fleet.data) {
    return fleet.isError ? (
      <ErrorBox error={fleet.error} title="The fleet could not be loaded" retry={() => fleet.refetch()} />
    ) : (
      <Loading what="the fleet" />
    );
  }
  const data = fleet.data;
  const totals = data.totals.monthly;
  const estimate = data.clusters.some((cluster) => cluster.monthly?.estimate);
  const inputs = fleetInputs(data);

  return (
    <>
      <h1>Fleet</h1>
      <p className="muted">
        {data.totals.clusters} clusters, {data.totals.staleClusters} without a recent snapshot ·{' '}
        <Freshness query={fleet} />
      </p>
      <section className="tiles" aria-label="monthly figures">
        <Tile
          label="Cross-zone cost a month"
          value={money(totals.withHints.cost)}
          testId="tile-cost"
          estimate={estimate}
          inputs={inputs}
        >
          as routed today; {money(totals.withoutHints.cost)} without any hints
        </Tile>
        <Tile
          label="Saved by topology routing"
          value={money(totals.realizedSavings.cost)}
          testId="tile-saved"
          estimate={estimate}
          inputs={inputs}
        >
          {number(totals.realizedSavings.crossZoneGb)} GB a month kept in-zone
        </Tile>
        <Tile
          label="Missed (not enabled)"
          value={money(totals.missedSavings.cost)}
          testId="tile-missed"
          estimate={estimate}
          inputs={inputs}
        >
          if routing were enabled where hints would be populated
        </Tile>
        <Tile
          label="At stake (hints refused)"
          value={money(totals.atStake.cost)}
          testId="tile-at-stake"
          estimate={totals.atStake.estimate}
          inputs={atStakeInputs(data)}
        >
          <span data-testid="at-stake-services">{number(totals.atStake.services)}</span> Services with routing enabled
          whose hints the controller refused: at most this much could be saved
        </Tile>
      </section>
      <MeasuredShare totals={totals} />

      <h2>Trends</h2>
      <TrendCharts path="/v1/fleet/trends" />
      <h2>Clusters</h2>
      {data.clusters.length === 0 ? (
        <Empty>
          No cluster yet: <Link href="/admin">register one</Link> and install the agent with the line it shows.
        </Empty>
      ) : (
        <ClustersTable clusters={data.clusters} />
      )}
    </>
  );
}

function Tile(props: {
  label: string;
  value: string;
  testId: string;
  estimate: boolean;
  inputs: string;
  children: ReactNode;
}) {
  return (
    <div className="tile" data-testid={props.testId}>
      <div className="tile-label">
        {props.label} {props.estimate && <EstimateBadge inputs={props.inputs} />}
      </div>
      <div className="tile-value">{props.value}</div>
      <div className="muted small">{props.children}</div>
    </div>
  );
}

/** How much of the traffic behind the fleet's dollar figures was measured by traffic sources. */
function MeasuredShare({ totals }: { totals: FleetAnswer['totals']['monthly'] }) {
  return (
    <p className="muted small" data-testid="fleet-measured-share">
      Traffic behind these figures: {percent(totals.measuredShare)} measured ({gb(totals.measuredTrafficGb)} of{' '}
      {gb(totals.trafficGb)} a month), the rest estimated.
    </p>
  );
}
