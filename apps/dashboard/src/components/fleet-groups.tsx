import { useMemo } from 'react';
import { money, number } from '../format';
import type { FleetCluster, HintCounts } from '../types';
import { useUrlState } from '../url-state';
import { HintBar } from './hint-bar';
import { TableScroll } from './table-scroll';

const LABEL = 'label:';

/** The group a cluster falls in: its cloud, its region, or the value of one of its labels. */
export function groupOf(cluster: FleetCluster, groupBy: string): string {
  if (groupBy === 'cloud') return cluster.cloud;
  if (groupBy === 'region') return cluster.region ?? '(no region)';
  if (groupBy.startsWith(LABEL)) {
    const key = groupBy.slice(LABEL.length);
    return cluster.labels[key] ?? `(no ${key} label)`;
  }
  return '';
}

export function groupWords(groupBy: string): string {
  return groupBy.startsWith(LABEL) ? `label ${groupBy.slice(LABEL.length)}` : groupBy;
}

/** Grouping: none, by cloud, by region, or by any label key a cluster of the fleet has. */
export function GroupPicker({ clusters }: { clusters: FleetCluster[] }) {
  const [param, setParams] = useUrlState();
  const keys = useMemo(
    () => [...new Set(clusters.flatMap((cluster) => Object.keys(cluster.labels)))].sort(),
    [clusters],
  );
  return (
    <label>
      Group by{' '}
      <select
        value={param('groupBy')}
        onChange={(event) => setParams({ groupBy: event.target.value, group: null, page: null })}
        name="groupBy"
      >
        <option value="">no grouping</option>
        <option value="cloud">cloud</option>
        <option value="region">region</option>
        {keys.map((key) => (
          <option key={key} value={`${LABEL}${key}`}>
            label {key}
          </option>
        ))}
      </select>
    </label>
  );
}

interface Group {
  name: string;
  clusters: number;
  stale: number;
  services: HintCounts;
  cost: number;
  saved: number;
  missed: number;
}

function groupsOf(clusters: FleetCluster[], groupBy: string): Group[] {
  const groups = new Map<string, Group>();
  for (const cluster of clusters) {
    const name = groupOf(cluster, groupBy);
    let group = groups.get(name);
    if (!group) {
      group = {
        name,
        clusters: 0,
        stale: 0,
        services: { populated: 0, removed: 0, none: 0 },
        cost: 0,
        saved: 0,
        missed: 0,
      };
      groups.set(name, group);
    }
    group.clusters += 1;
    if (cluster.lastSnapshot?.stale ?? true) group.stale += 1;
    group.services.populated += cluster.services.populated;
    group.services.removed += cluster.services.removed;
    group.services.none += cluster.services.none;
    group.cost += cluster.monthly?.withHints.cost ?? 0;
    group.saved += cluster.monthly?.realizedSavings.cost ?? 0;
    group.missed += cluster.monthly?.missedSavings.cost ?? 0;
  }
  return [...groups.values()].sort((a, b) => b.cost - a.cost || a.name.localeCompare(b.name));
}

/**
 * The fleet in groups (by cloud, region or a label), largest cost first: each group's clusters, stale
 * agents, Services by hint state and monthly figures (run-rate). A group's name opens its clusters.
 */
export function FleetGroups({ clusters, groupBy }: { clusters: FleetCluster[]; groupBy: string }) {
  const [, setParams] = useUrlState();
  const groups = useMemo(() => groupsOf(clusters, groupBy), [clusters, groupBy]);
  return (
    <TableScroll label={`clusters by ${groupWords(groupBy)}`}>
      <table className="data" data-testid="fleet-groups">
        <thead>
          <tr>
            <th scope="col">{groupWords(groupBy)}</th>
            <th scope="col" className="num">
              Clusters
            </th>
            <th scope="col" className="num">
              Stale agents
            </th>
            <th scope="col">Services by hint state</th>
            <th scope="col" className="num">
              Cost / month
            </th>
            <th scope="col" className="num">
              Saved / month
            </th>
            <th scope="col" className="num">
              Missed / month
            </th>
          </tr>
        </thead>
        <tbody>
          {groups.map((group) => (
            <tr key={group.name} data-group={group.name}>
              <td>
                <button type="button" className="link" onClick={() => setParams({ group: group.name, page: null })}>
                  {group.name}
                </button>
              </td>
              <td className="num">{number(group.clusters)}</td>
              <td className="num">
                <span className={group.stale > 0 ? 'bad' : ''}>{number(group.stale)}</span>
              </td>
              <td>
                <HintBar counts={group.services} />
              </td>
              <td className="num">{money(group.cost)}</td>
              <td className="num">{money(group.saved)}</td>
              <td className="num">{money(group.missed)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
