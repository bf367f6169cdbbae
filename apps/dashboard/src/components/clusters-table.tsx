import { memo, useMemo } from 'react';
import { TableScroll } from './table-scroll';
import { age, money, number } from '../format';
import type { FleetCluster } from '../types';
import { useUrlState } from '../url-state';
import { useLinkClicks } from '../link-clicks';
import { HintBar } from './hint-bar';
import { GroupPicker, FleetGroups, groupOf, groupWords } from './fleet-groups';
import { TrafficBasis } from './traffic-basis';

type SortKey = 'name' | 'services' | 'drift' | 'cost' | 'savings' | 'missed' | 'age';

const SORTS: Record<SortKey, (cluster: FleetCluster) => number | string> = {
  name: (cluster) => cluster.name,
  services: (cluster) => cluster.services.populated + cluster.services.removed + cluster.services.none,
  drift: (cluster) => cluster.servicesWithDrift ?? -1,
  cost: (cluster) => cluster.monthly?.withHints.cost ?? -1,
  savings: (cluster) => cluster.monthly?.realizedSavings.cost ?? -1,
  missed: (cluster) => cluster.monthly?.missedSavings.cost ?? -1,
  age: (cluster) => cluster.lastSnapshot?.ageSeconds ?? Number.MAX_SAFE_INTEGER,
};

/** Rows drawn at once: a fleet of thousands stays as quick to draw as one of fifty. */
export const CLUSTERS_PER_PAGE = 50;

interface View {
  sort: SortKey;
  order: string;
  filter: string;
  only: string;
  groupBy: string;
  group: string;
}

/** What the text filter looks in: name, cloud, region and every label as key=value. */
function searchText(cluster: FleetCluster): string {
  const labels = Object.entries(cluster.labels).map(([key, value]) => `${key}=${value}`);
  return `${cluster.name} ${cluster.cloud} ${cluster.region ?? ''} ${labels.join(' ')}`.toLowerCase();
}

function keptAndSorted(clusters: FleetCluster[], view: View): FleetCluster[] {
  const key = SORTS[view.sort] ?? SORTS.name;
  const kept = clusters.filter(
    (cluster) =>
      (view.group === '' || groupOf(cluster, view.groupBy) === view.group) &&
      (view.filter === '' || searchText(cluster).includes(view.filter)) &&
      (view.only !== 'stale' || (cluster.lastSnapshot?.stale ?? true)) &&
      (view.only !== 'node-info' || cluster.nodeInfo.sufficient === false) &&
      (view.only !== 'drift' || (cluster.servicesWithDrift ?? 0) > 0),
  );
  const direction = view.order === 'asc' ? 1 : -1;
  return kept.sort((a, b) => {
    const left = key(a);
    const right = key(b);
    return (typeof left === 'string' ? left.localeCompare(right as string) : left - (right as number)) * direction;
  });
}

/**
 * Every cluster of the fleet, sorted and filtered over all of them, drawn a page at a time. Sort, filter
 * and page live in the URL.
 */
export function ClustersTable({ clusters }: { clusters: FleetCluster[] }) {
  const [param, setParams] = useUrlState();
  const followLink = useLinkClicks();
  const sort = (param('sort') || 'name') as SortKey;
  const order = param('order') || (sort === 'name' ? 'asc' : 'desc');
  const filter = param('q').toLowerCase();
  const only = param('only');
  const groupBy = param('groupBy');
  const group = groupBy ? param('group') : '';
  const rows = useMemo(
    () => keptAndSorted(clusters, { sort, order, filter, only, groupBy, group }),
    [clusters, sort, order, filter, only, groupBy, group],
  );
  const pages = Math.max(1, Math.ceil(rows.length / CLUSTERS_PER_PAGE));
  const page = Math.min(pages, Math.max(1, Number(param('page')) || 1));
  const shown = rows.slice((page - 1) * CLUSTERS_PER_PAGE, page * CLUSTERS_PER_PAGE);
  // A new sort or filter starts again from the first page.
  const change = (changes: Record<string, string | null>, options?: { replace?: boolean }) =>
    setParams({ ...changes, page: null }, options);
  const goTo = (next: number) => setParams({ page: next === 1 ? null : String(next) });

  const header = (key: SortKey, label: string) => {
    const active = sort === key;
    const next = active && order === 'desc' ? 'asc' : active ? 'desc' : key === 'name' ? 'asc' : 'desc';
    return (
      <th scope="col" aria-sort={active ? (order === 'asc' ? 'ascending' : 'descending') : 'none'}>
        <button type="button" className="sort" onClick={() => change({ sort: key, order: next })}>
          {label}
          {active ? (order === 'asc' ? ' ▲' : ' ▼') : ''}
        </button>
      </th>
    );
  };

  return (
    <>
      <div className="controls">
        <label>
          Filter by name, cloud, region or label{' '}
          <input
            type="search"
            value={param('q')}
            onChange={(event) => change({ q: event.target.value }, { replace: param('q') !== '' })}
          />
        </label>
        <label>
          Show{' '}
          <select value={only} onChange={(event) => change({ only: event.target.value })}>
            <option value="">every cluster</option>
            <option value="stale">stale agents</option>
            <option value="node-info">node info insufficient</option>
            <option value="drift">with drift</option>
          </select>
        </label>
        <GroupPicker clusters={clusters} />
        <span className="muted" aria-live="polite" data-testid="clusters-shown">
          {rows.length} of {clusters.length} shown
        </span>
      </div>
      {groupBy && group && (
        <p>
          <button type="button" onClick={() => setParams({ group: null, page: null })}>
            ← every {groupWords(groupBy)}
          </button>{' '}
          <strong data-testid="fleet-group">
            {groupWords(groupBy)}: {group}
          </strong>
        </p>
      )}
      {groupBy && !group ? (
        <FleetGroups clusters={rows} groupBy={groupBy} />
      ) : (
        <TableScroll label="clusters">
          <table className="data" data-testid="clusters-table" onClick={followLink}>
            <thead>
              <tr>
                {header('name', 'Cluster')}
                {header('services', 'Services by hint state')}
                {header('drift', 'Drift')}
                <th scope="col">Node info</th>
                {header('age', 'Agent')}
                {header('cost', 'Cost / month')}
                {header('savings', 'Saved / month')}
                {header('missed', 'Missed / month')}
              </tr>
            </thead>
            <tbody>
              {shown.map((cluster) => (
                <ClusterRow key={cluster.id} cluster={cluster} />
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {!(groupBy && !group) && pages > 1 && (
        <nav className="controls" aria-label="pages of clusters">
          <button type="button" disabled={page === 1} onClick={() => goTo(1)}>
            First page
          </button>
          <button type="button" disabled={page === 1} onClick={() => goTo(page - 1)}>
            Previous page
          </button>
          <span className="muted" data-testid="clusters-page">
            {(page - 1) * CLUSTERS_PER_PAGE + 1}–{(page - 1) * CLUSTERS_PER_PAGE + shown.length} of {rows.length} (page{' '}
            {page} of {pages})
          </span>
          <button type="button" disabled={page === pages} onClick={() => goTo(page + 1)}>
            Next page
          </button>
        </nav>
      )}
    </>
  );
}

// A refreshed fleet answer keeps unchanged clusters as the same objects: their rows are not drawn again.
const ClusterRow = memo(function ClusterRow({ cluster }: { cluster: FleetCluster }) {
  return (
    <tr data-cluster={cluster.name}>
      <td>
        <a href={`/clusters/${cluster.id}`}>{cluster.name}</a>
        <div className="muted small">
          {cluster.cloud}
          {cluster.region ? ` · ${cluster.region}` : ''}
          {Object.entries(cluster.labels)
            .map(([key, value]) => ` · ${key}=${value}`)
            .join('')}
        </div>
      </td>
      <td>
        <HintBar counts={cluster.services} />
        <div className="muted small">
          {cluster.services.populated} / {cluster.services.removed} / {cluster.services.none}
        </div>
      </td>
      <td className="num">{number(cluster.servicesWithDrift)}</td>
      <td>
        {cluster.nodeInfo.sufficient === false ? (
          <span className="bad" title={cluster.nodeInfo.reason ?? ''}>
            insufficient
          </span>
        ) : cluster.nodeInfo.sufficient ? (
          'sufficient'
        ) : (
          '—'
        )}
      </td>
      <td>
        {cluster.lastSnapshot ? (
          <span className={cluster.lastSnapshot.stale ? 'bad' : ''}>
            {cluster.lastSnapshot.stale ? 'stale, ' : ''}
            {age(cluster.lastSnapshot.ageSeconds)}
          </span>
        ) : (
          <span className="bad">no snapshot yet</span>
        )}
      </td>
      <td className="num">
        {money(cluster.monthly?.withHints.cost)}
        {cluster.monthly && <TrafficBasis measuredShare={cluster.monthly.measuredShare} />}
      </td>
      <td className="num">{money(cluster.monthly?.realizedSavings.cost)}</td>
      <td className="num">{money(cluster.monthly?.missedSavings.cost)}</td>
    </tr>
  );
});
