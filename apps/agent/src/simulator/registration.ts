import type { ClusterScenario } from './fleet.js';

/**
 * Creates the demo clusters through the API with an admin key of the organization they belong to, as
 * an operator would (POST /v1/clusters). A cluster that already exists gets a new token
 * (POST /v1/clusters/{id}/agent-token): the simulator never sees stored tokens, only new ones. The
 * clusters get no overrides: their Kubernetes version and data plane come in their snapshots, as a real
 * agent reports them.
 */
export async function ensureClusters(
  apiUrl: string,
  apiKey: string,
  scenarios: readonly ClusterScenario[],
): Promise<Map<string, { clusterId: string; agentToken: string }>> {
  const api = adminClient(apiUrl, apiKey);
  const existing = await existingClusters(api);
  const clusters = new Map<string, { clusterId: string; agentToken: string }>();
  for (const scenario of scenarios) {
    const clusterId = existing.get(scenario.name);
    if (clusterId) {
      const { agentToken } = await api<{ agentToken: string }>('POST', `/v1/clusters/${clusterId}/agent-token`);
      clusters.set(scenario.name, { clusterId, agentToken });
      continue;
    }
    const created = await api<{ cluster: { id: string }; agentToken: string }>('POST', '/v1/clusters', {
      name: scenario.name,
      cloud: scenario.cloud,
      region: scenario.region,
      crossZonePricePerGb: scenario.crossZonePricePerGb,
    });
    clusters.set(scenario.name, { clusterId: created.cluster.id, agentToken: created.agentToken });
  }
  return clusters;
}

/** An answer of the API that is not a success (with the problem's own words), or no answer at all. */
export class RegistrationError extends Error {
  constructor(
    message: string,
    /** The API refused the request (4xx): the key or the options are wrong, not the network. */
    readonly refused: boolean,
  ) {
    super(message);
  }
}

type AdminClient = <T>(method: string, path: string, body?: unknown) => Promise<T>;

function adminClient(apiUrl: string, apiKey: string): AdminClient {
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(new URL(path, apiUrl), {
      method,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).catch((error: Error) => {
      throw new RegistrationError(
        `${method} ${path}: ${(error.cause as Error | undefined)?.message ?? error.message}`,
        false,
      );
    });
    const answer = (await response.json().catch(() => null)) as (T & { detail?: string }) | null;
    if (!response.ok) {
      const refused = response.status >= 400 && response.status < 500;
      throw new RegistrationError(
        `${method} ${path}: ${response.status} ${answer?.detail ?? response.statusText}`,
        refused,
      );
    }
    return answer as T;
  };
}

/** The organization's clusters by name, every page. */
async function existingClusters(api: AdminClient): Promise<Map<string, string>> {
  const byName = new Map<string, string>();
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const page: { clusters: { id: string; name: string }[]; nextCursor: string | null } = await api(
      'GET',
      `/v1/clusters?limit=1000${query}`,
    );
    for (const cluster of page.clusters) byName.set(cluster.name, cluster.id);
    cursor = page.nextCursor;
  } while (cursor);
  return byName;
}
