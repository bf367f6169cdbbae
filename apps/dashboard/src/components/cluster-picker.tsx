import { useQuery } from '@tanstack/react-query';
import { get } from '../api';
import type { ClusterEntry, ClusterList } from '../types';

/** Every cluster of the organization (the list's pages of 1,000 followed to the end), by name. */
export function useAllClusters() {
  return useQuery({
    queryKey: ['clusters', 'all'],
    queryFn: async () => {
      const clusters: ClusterEntry[] = [];
      let cursor: string | null = null;
      do {
        const page: ClusterList = await get<ClusterList>(
          `/v1/clusters?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        clusters.push(...page.clusters);
        cursor = page.nextCursor;
      } while (cursor);
      return clusters.sort((a, b) => a.name.localeCompare(b.name));
    },
  });
}

/** A cluster to work on, by name (with its cloud and region). */
export function ClusterPicker(props: {
  clusters: ClusterEntry[];
  value: string;
  onChange: (clusterId: string) => void;
}) {
  return (
    <label>
      Cluster
      <select value={props.value} onChange={(event) => props.onChange(event.target.value)} name="cluster">
        <option value="">choose a cluster…</option>
        {props.clusters.map((cluster) => (
          <option key={cluster.id} value={cluster.id}>
            {cluster.name} ({cluster.cloud}
            {cluster.region ? `, ${cluster.region}` : ''})
          </option>
        ))}
      </select>
    </label>
  );
}
