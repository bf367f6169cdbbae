import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { TableScroll } from '../components/table-scroll';
import { type FormEvent, useState } from 'react';
import { Link } from 'wouter';
import { get, request } from '../api';
import { isAdmin } from '../auth';
import { ConfirmButton } from '../components/confirm-button';
import { Secret } from '../components/secret';
import { Empty, ErrorBox, Loading } from '../components/states';
import { when } from '../format';
import { useIdentity } from '../identity';
import type {
  ApiKeyEntry as ApiKey,
  ApiKeyList,
  ClusterEntry as Cluster,
  ClusterList,
  CreatedApiKey,
  CreatedCluster,
  RotatedToken,
} from '../types';

/** The exact line that installs the agent for this cluster, pointing at this API. */
export function helmInstallLine(clusterName: string, token: string): string {
  return (
    'helm install zonewise-agent deploy/helm/zonewise-agent --namespace zonewise --create-namespace \\\n' +
    `  --set api.url=${window.location.origin} --set agentToken=${token} --set clusterName=${clusterName}`
  );
}

export default function AdminPage() {
  const identity = useIdentity();
  if (identity.isPending) return <Loading what="your key" />;
  if (!isAdmin(identity.data)) {
    return (
      <>
        <h1>Admin</h1>
        <Empty>
          You have the {identity.data?.role ?? 'viewer'} role: an admin registers clusters and manages keys.
        </Empty>
      </>
    );
  }
  return (
    <>
      <h1>Admin</h1>
      <Clusters />
      <ApiKeys />
    </>
  );
}

function Clusters() {
  const client = useQueryClient();
  const clusters = useQuery({
    queryKey: ['clusters'],
    queryFn: () => get<ClusterList>('/v1/clusters?limit=500'),
  });
  const [name, setName] = useState('');
  const [cloud, setCloud] = useState('aws');
  const [region, setRegion] = useState('');
  const [issued, setIssued] = useState<{ cluster: string; token: string; rotated: boolean } | null>(null);
  const refresh = () => {
    void client.invalidateQueries({ queryKey: ['clusters'] });
    void client.invalidateQueries({ queryKey: ['fleet'] });
  };
  const register = useMutation({
    mutationFn: () =>
      request<CreatedCluster>('POST', '/v1/clusters', {
        name,
        cloud,
        ...(region ? { region } : {}),
      }),
    onSuccess: (answer) => {
      setIssued({ cluster: answer.cluster.name, token: answer.agentToken, rotated: false });
      setName('');
      setRegion('');
      refresh();
    },
  });
  const rotate = useMutation({
    mutationFn: (cluster: Cluster) =>
      request<RotatedToken>('POST', `/v1/clusters/${cluster.id}/agent-token`, {}).then((answer) => ({
        answer,
        cluster,
      })),
    onSuccess: ({ answer, cluster }) => {
      setIssued({ cluster: cluster.name, token: answer.agentToken, rotated: true });
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (cluster: Cluster) => request('DELETE', `/v1/clusters/${cluster.id}`),
    onSuccess: refresh,
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    register.mutate();
  }

  return (
    <section aria-labelledby="clusters-heading">
      <h2 id="clusters-heading">Clusters</h2>
      <form className="controls panel" onSubmit={submit} aria-label="register a cluster">
        <label>
          Cluster name
          <input value={name} onChange={(event) => setName(event.target.value)} name="cluster-name" required />
        </label>
        <label>
          Cloud
          <select value={cloud} onChange={(event) => setCloud(event.target.value)} name="cloud">
            <option value="aws">AWS</option>
            <option value="gcp">Google Cloud</option>
            <option value="azure">Azure</option>
            <option value="other">other</option>
          </select>
        </label>
        <label>
          Region
          <input
            value={region}
            onChange={(event) => setRegion(event.target.value)}
            name="region"
            placeholder="eu-west-1"
          />
        </label>
        <button type="submit" className="primary" disabled={register.isPending}>
          Register cluster
        </button>
      </form>
      {register.isError && <ErrorBox error={register.error} title="The cluster was not registered" />}
      {rotate.isError && <ErrorBox error={rotate.error} title="The token was not rotated" />}
      {remove.isError && <ErrorBox error={remove.error} title="The cluster was not deleted" />}
      {issued && (
        <Secret
          title={`${issued.rotated ? 'New agent token' : 'Agent token'} of ${issued.cluster}.`}
          secret={issued.token}
        >
          <p>
            {issued.rotated
              ? 'The previous token stopped working: update the agent with'
              : 'Install the agent in the cluster with'}
            :
          </p>
          <code className="block" data-testid="helm-line">
            {helmInstallLine(issued.cluster, issued.token)}
          </code>
          <button type="button" onClick={() => setIssued(null)}>
            I have copied it
          </button>
        </Secret>
      )}
      {!clusters.data ? (
        clusters.isError ? (
          <ErrorBox error={clusters.error} retry={() => clusters.refetch()} />
        ) : (
          <Loading what="clusters" />
        )
      ) : clusters.data.clusters.length === 0 ? (
        <Empty>No cluster yet: register one above, then run the helm line it shows in the cluster.</Empty>
      ) : (
        <TableScroll label="clusters and agent tokens">
          <table className="data" data-testid="admin-clusters">
            <thead>
              <tr>
                <th scope="col">Cluster</th>
                <th scope="col">Agent token</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {clusters.data.clusters.map((cluster) => (
                <tr key={cluster.id} data-cluster={cluster.name}>
                  <td>
                    <Link href={`/clusters/${cluster.id}`}>{cluster.name}</Link>
                    <div className="muted small">
                      {cluster.cloud}
                      {cluster.region ? ` · ${cluster.region}` : ''}
                    </div>
                  </td>
                  <td>
                    {cluster.agentToken
                      ? `${cluster.agentToken.prefix}… (${cluster.agentToken.rotatedAt ? `rotated ${when(cluster.agentToken.rotatedAt)}` : `issued ${when(cluster.agentToken.createdAt)}`})`
                      : '—'}
                  </td>
                  <td>
                    <ConfirmButton
                      label="Rotate token"
                      question={`Rotate the agent token of ${cluster.name}?`}
                      consequence={
                        <p>
                          The current token stops working at once: the cluster's agent is refused until it is configured
                          with the new token, shown once on this page. Snapshots taken meanwhile wait in the agent's
                          spool.
                        </p>
                      }
                      confirm="Rotate token"
                      onConfirm={() => rotate.mutate(cluster)}
                    />{' '}
                    <ConfirmButton
                      label="Delete"
                      className="danger"
                      question={`Delete ${cluster.name}?`}
                      consequence={
                        <p>
                          Its whole history goes (snapshots, Service states, savings, reports' figures for it), and its
                          agent's pushes are refused from now on. This cannot be undone.
                        </p>
                      }
                      confirm="Delete cluster"
                      onConfirm={() => remove.mutate(cluster)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}

function ApiKeys() {
  const client = useQueryClient();
  const keys = useQuery({ queryKey: ['api-keys'], queryFn: () => get<ApiKeyList>('/v1/api-keys') });
  const [name, setName] = useState('');
  const [role, setRole] = useState('viewer');
  const [days, setDays] = useState('');
  const [issued, setIssued] = useState<{ name: string; key: string } | null>(null);
  const refresh = () => void client.invalidateQueries({ queryKey: ['api-keys'] });
  const create = useMutation({
    mutationFn: () =>
      request<CreatedApiKey>('POST', '/v1/api-keys', {
        name,
        role,
        ...(days ? { expiresInDays: Number(days) } : {}),
      }),
    onSuccess: (answer) => {
      setIssued({ name: answer.apiKey.name, key: answer.key });
      setName('');
      refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: (key: ApiKey) => request('DELETE', `/v1/api-keys/${key.id}`),
    onSuccess: refresh,
  });

  return (
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading">API keys</h2>
      <form
        className="controls panel"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
        aria-label="create an API key"
      >
        <label>
          Key name
          <input value={name} onChange={(event) => setName(event.target.value)} name="key-name" required />
        </label>
        <label>
          Role
          <select value={role} onChange={(event) => setRole(event.target.value)} name="role">
            <option value="viewer">viewer</option>
            <option value="operator">operator</option>
            <option value="admin">admin</option>
          </select>
        </label>
        <label>
          Expires in (days, empty: never)
          <input
            type="number"
            min={1}
            max={3650}
            value={days}
            onChange={(event) => setDays(event.target.value)}
            name="expires"
          />
        </label>
        <button type="submit" className="primary" disabled={create.isPending}>
          Create key
        </button>
      </form>
      {create.isError && <ErrorBox error={create.error} title="The key was not created" />}
      {revoke.isError && <ErrorBox error={revoke.error} title="The key was not revoked" />}
      {issued && (
        <Secret title={`API key “${issued.name}”.`} secret={issued.key}>
          <button type="button" onClick={() => setIssued(null)}>
            I have copied it
          </button>
        </Secret>
      )}
      {!keys.data ? (
        keys.isError ? (
          <ErrorBox error={keys.error} retry={() => keys.refetch()} />
        ) : (
          <Loading what="API keys" />
        )
      ) : (
        <TableScroll label="API keys">
          <table className="data" data-testid="api-keys">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Role</th>
                <th scope="col">Key</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.apiKeys.map((key) => (
                <tr key={key.id} data-key={key.name}>
                  <td>{key.name}</td>
                  <td>{key.role}</td>
                  <td>
                    <code>{key.prefix}…</code>
                  </td>
                  <td>{when(key.lastUsedAt)}</td>
                  <td>{key.expiresAt ? when(key.expiresAt) : 'never'}</td>
                  <td>
                    {key.revokedAt ? (
                      <span className="muted">revoked {when(key.revokedAt)}</span>
                    ) : (
                      <ConfirmButton
                        label="Revoke"
                        className="danger"
                        question={`Revoke the key “${key.name}”?`}
                        consequence={
                          <p>
                            It stops working at once: every dashboard, script or integration using it is refused from
                            its next request. This cannot be undone (create a new key instead).
                          </p>
                        }
                        confirm="Revoke key"
                        onConfirm={() => revoke.mutate(key)}
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}
