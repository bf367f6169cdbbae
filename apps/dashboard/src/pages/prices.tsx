import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useState } from 'react';
import { get, request } from '../api';
import { isOperator } from '../auth';
import { ConfirmButton } from '../components/confirm-button';
import { ErrorBox, Loading } from '../components/states';
import { TableScroll } from '../components/table-scroll';
import { useIdentity } from '../identity';
import type { Answer } from '../types';
import { PRICE_SOURCE_WORDS, priceSourceWord } from '../vocabulary';

type Pricing = Answer<'/v1/pricing'>;
type PricedCluster = Pricing['clusters'][number];

const QUERY_KEY = ['pricing'];
/** Enough digits for a fraction of a cent per GB. */
const perGb = (value: number) => `$${value.toFixed(4).replace(/0{1,2}$/, '')} per GB`;

/**
 * Prices: the catalogue (per provider, with its source and date), the organization's price over it and
 * each cluster's own; every cost zonewise answers with uses the cluster's effective price shown here.
 * Operators and admins set and clear the overrides; viewers read.
 */
export default function PricesPage() {
  const identity = useIdentity();
  const canWrite = isOperator(identity.data);
  const pricing = useQuery({ queryKey: QUERY_KEY, queryFn: () => get<Pricing>('/v1/pricing') });
  return (
    <>
      <h1>Prices</h1>
      <p className="muted">
        The price of one GB crossing a zone boundary, in {pricing.data?.currency ?? 'USD'}. A cluster&apos;s own price
        wins over the organization&apos;s, which wins over the catalogue.
      </p>
      {pricing.isError && (
        <ErrorBox
          error={pricing.error}
          title={
            pricing.data ? 'The prices could not be refreshed (shown: the last read)' : 'The prices could not be read'
          }
          retry={() => pricing.refetch()}
        />
      )}
      {pricing.data ? (
        <>
          <Catalogue pricing={pricing.data} />
          <OrganizationPrice pricing={pricing.data} canWrite={canWrite} />
          <ClusterPrices pricing={pricing.data} canWrite={canWrite} />
        </>
      ) : (
        !pricing.isError && <Loading what="the prices" />
      )}
    </>
  );
}

function Catalogue({ pricing }: { pricing: Pricing }) {
  const free = pricing.catalogue.filter((entry) => entry.pricePerGb === 0);
  return (
    <section className="panel" aria-labelledby="catalogue-heading">
      <h2 id="catalogue-heading">Catalogue</h2>
      <TableScroll label="price catalogue">
        <table className="data" data-testid="catalogue">
          <thead>
            <tr>
              <th scope="col">Provider</th>
              <th scope="col">Price</th>
              <th scope="col">Basis</th>
              <th scope="col">Source</th>
              <th scope="col">Read on</th>
            </tr>
          </thead>
          <tbody>
            {pricing.catalogue.map((entry) => (
              <tr key={entry.cloud} data-cloud={entry.cloud}>
                <td>{entry.cloud}</td>
                <td data-testid="catalogue-price">
                  {perGb(entry.pricePerGb)} <span className="muted small">{entry.currency}</span>
                </td>
                <td>{entry.basis}</td>
                <td>
                  <a href={entry.url} target="_blank" rel="noreferrer">
                    {new URL(entry.url).host}
                  </a>
                  <div className="muted small">“{entry.sourceSays}”</div>
                </td>
                <td>{entry.sourceDate}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      {free.length > 0 && (
        <p className="muted small" data-testid="zero-catalogue">
          {free.map((entry) => entry.cloud).join(' and ')} charge nothing for traffic between zones: their clusters cost
          $0 and save $0 by keeping traffic in its zone, because the price is zero, not because nothing crosses.
        </p>
      )}
    </section>
  );
}

function OrganizationPrice({ pricing, canWrite }: { pricing: Pricing; canWrite: boolean }) {
  const client = useQueryClient();
  const price = pricing.organization.crossZonePricePerGb;
  const save = useMutation({
    mutationFn: (crossZonePricePerGb: number | null) => request<Pricing>('PUT', '/v1/pricing', { crossZonePricePerGb }),
    onSuccess: (answer) => client.setQueryData(QUERY_KEY, answer),
  });
  return (
    <section className="panel" aria-labelledby="organization-price-heading">
      <h2 id="organization-price-heading">Organization&apos;s price</h2>
      <p data-testid="organization-price">
        {price === null ? 'Not set: every cluster without its own price uses the catalogue.' : perGb(price)}
      </p>
      {save.isError && (
        <ErrorBox
          error={save.error}
          title="The organization's price was not changed"
          retry={() => save.mutate(save.variables ?? null)}
        />
      )}
      {canWrite ? (
        <PriceForm
          name="organization-price"
          label="Organization's price (USD per GB)"
          pending={save.isPending}
          onSave={(value) => save.mutate(value)}
          clear={
            price === null
              ? null
              : {
                  question: "Clear the organization's price?",
                  consequence: (
                    <p>
                      Figures go back to the catalogue price for every cluster without its own price; history already
                      computed keeps the price it had.
                    </p>
                  ),
                  onConfirm: () => save.mutate(null),
                }
          }
        />
      ) : (
        <p className="muted small">Read only: an operator or admin sets prices.</p>
      )}
    </section>
  );
}

function ClusterPrices({ pricing, canWrite }: { pricing: Pricing; canWrite: boolean }) {
  return (
    <section className="panel" aria-labelledby="cluster-prices-heading">
      <h2 id="cluster-prices-heading">Clusters</h2>
      <p className="muted small">Where each price comes from: {Object.values(PRICE_SOURCE_WORDS).join(', ')}.</p>
      {pricing.clusters.length === 0 ? (
        <p className="muted">No cluster yet.</p>
      ) : (
        <TableScroll label="cluster prices">
          <table className="data" data-testid="cluster-prices">
            <thead>
              <tr>
                <th scope="col">Cluster</th>
                <th scope="col">Price</th>
                <th scope="col">From</th>
                {canWrite && <th scope="col">Own price</th>}
              </tr>
            </thead>
            <tbody>
              {pricing.clusters.map((cluster) => (
                <ClusterRow
                  key={cluster.id}
                  cluster={cluster}
                  canWrite={canWrite}
                  organizationPrice={pricing.organization.crossZonePricePerGb}
                />
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}

function ClusterRow({
  cluster,
  canWrite,
  organizationPrice,
}: {
  cluster: PricedCluster;
  canWrite: boolean;
  organizationPrice: number | null;
}) {
  const client = useQueryClient();
  const save = useMutation({
    mutationFn: (crossZonePricePerGb: number | null) =>
      request<unknown>('PATCH', `/v1/clusters/${cluster.id}`, { crossZonePricePerGb }),
    onSuccess: () => client.invalidateQueries({ queryKey: QUERY_KEY }),
  });
  const own = cluster.pricing.overridePerGb;
  return (
    <tr data-cluster={cluster.id} data-source={cluster.pricing.source}>
      <td>
        {cluster.name}
        <div className="muted small">
          {cluster.cloud}
          {cluster.region ? ` · ${cluster.region}` : ''}
        </div>
      </td>
      <td data-testid="cluster-price">{perGb(cluster.pricing.pricePerGb)}</td>
      <td>
        <span data-testid="cluster-price-source">{priceSourceWord(cluster.pricing.source)}</span>
        <div className="muted small">{cluster.pricing.note}</div>
      </td>
      {canWrite && (
        <td>
          {save.isError && (
            <ErrorBox
              error={save.error}
              title={`The price of ${cluster.name} was not changed`}
              retry={() => save.mutate(save.variables ?? null)}
            />
          )}
          <PriceForm
            name={`cluster-price-${cluster.id}`}
            label={`Own price of ${cluster.name} (USD per GB)`}
            pending={save.isPending}
            onSave={(value) => save.mutate(value)}
            clear={
              own === null
                ? null
                : {
                    question: `Clear the own price of ${cluster.name}?`,
                    consequence: (
                      <p>
                        {organizationPrice === null
                          ? 'Its figures go back to the catalogue price.'
                          : `Its figures go back to the organization's price (${perGb(organizationPrice)}).`}
                      </p>
                    ),
                    onConfirm: () => save.mutate(null),
                  }
            }
          />
        </td>
      )}
    </tr>
  );
}

function PriceForm(props: {
  name: string;
  label: string;
  pending: boolean;
  onSave: (value: number) => void;
  clear: { question: string; consequence: ReactNode; onConfirm: () => void } | null;
}) {
  const [typed, setTyped] = useState('');
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const value = Number(typed);
    if (typed.trim() === '' || !Number.isFinite(value)) return;
    props.onSave(value);
    setTyped('');
  };
  return (
    // The clear button's dialog holds a form of its own: it stays outside this one (forms do not nest).
    <div className="controls" data-testid={`${props.name}-form`}>
      <form className="controls" onSubmit={submit}>
        <label>
          {props.label}
          <input
            name={props.name}
            type="number"
            inputMode="decimal"
            min={0}
            max={1000}
            step="any"
            required
            value={typed}
            onChange={(event) => setTyped(event.target.value)}
          />
        </label>
        <button type="submit" disabled={props.pending}>
          Set
        </button>
      </form>
      {props.clear && (
        <ConfirmButton
          label="Clear"
          className="danger"
          question={props.clear.question}
          consequence={props.clear.consequence}
          confirm="Clear price"
          disabled={props.pending}
          onConfirm={props.clear.onConfirm}
        />
      )}
    </div>
  );
}
