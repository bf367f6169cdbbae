import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { get, request } from '../api';
import { isOperator } from '../auth';
import { ConfirmButton } from '../components/confirm-button';
import { Secret } from '../components/secret';
import { Empty, ErrorBox, Loading } from '../components/states';
import { TableScroll } from '../components/table-scroll';
import { when } from '../format';
import { useIdentity } from '../identity';
import type { Answer, RequestBody } from '../types';

type Channels = Answer<'/v1/alert-channels'>;
type Channel = Channels['items'][number];
type CreatedChannel = Answer<'/v1/alert-channels', 'post'>;
type ChannelBody = RequestBody<'/v1/alert-channels', 'post'>;
type Rules = Answer<'/v1/alert-rules'>;
type RuleBody = RequestBody<'/v1/alert-rules', 'post'>;
type Delivery = Answer<'/v1/alert-deliveries/{id}'>;
type Deliveries = Answer<'/v1/alert-deliveries'>;
type Alerts = Answer<'/v1/alerts'>;

const CHANNEL_KINDS = {
  slack: 'Slack (incoming webhook URL)',
  teams: 'Microsoft Teams (Workflows webhook URL)',
  email: 'Email (addresses, comma-separated)',
  webhook: 'Webhook (signed, Standard Webhooks)',
} satisfies Record<ChannelBody['kind'], string>;

const RULE_KINDS = {
  'hints-lost': 'A Service lost its topology hints',
  drift: 'Hints drifted from what the controller computes',
  'savings-missed': 'Estimated missed savings above a threshold',
  'agent-stale': "A cluster's agent went stale",
  'traffic-source-failing': 'A traffic source is failing',
} satisfies Record<RuleBody['kind'], string>;

const FINISHED = new Set(['succeeded', 'failed', 'skipped']);

/**
 * Alerts: where they go (channels, each with a "send test" whose delivery the page follows to its
 * outcome), what raises them (rules), the open alerts and the delivery log. Operators and admins manage.
 */
export default function AlertsPage() {
  const identity = useIdentity();
  const canWrite = isOperator(identity.data);
  const channels = useQuery({ queryKey: ['alert-channels'], queryFn: () => get<Channels>('/v1/alert-channels') });
  return (
    <>
      <h1>Alerts</h1>
      <p className="muted">
        Rules watch your clusters; an alert opens once per rule and subject, sends one message to each of the
        rule&apos;s channels, and one more when its condition clears.
      </p>
      {!channels.data ? (
        channels.isError ? (
          <ErrorBox error={channels.error} retry={() => channels.refetch()} />
        ) : (
          <Loading what="alert channels" />
        )
      ) : (
        <>
          <ChannelsPanel channels={channels.data.items} canWrite={canWrite} />
          <RulesPanel channels={channels.data.items} canWrite={canWrite} />
          <OpenAlerts />
          <DeliveryLog />
        </>
      )}
    </>
  );
}

function ChannelsPanel({ channels, canWrite }: { channels: Channel[]; canWrite: boolean }) {
  const client = useQueryClient();
  const [created, setCreated] = useState<CreatedChannel | null>(null);
  const create = useMutation({
    mutationFn: (body: ChannelBody) => request<CreatedChannel>('POST', '/v1/alert-channels', body),
    onSuccess: (channel) => {
      setCreated(channel);
      void client.invalidateQueries({ queryKey: ['alert-channels'] });
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => request<void>('DELETE', `/v1/alert-channels/${id}`),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['alert-channels'] }),
  });
  return (
    <section className="panel" aria-labelledby="channels-heading">
      <h2 id="channels-heading">Channels</h2>
      {created?.secret && (
        <Secret title={`Signing secret of “${created.name}”.`} secret={created.secret}>
          Receivers verify messages with any Standard Webhooks library and this secret.
        </Secret>
      )}
      {remove.isError && <ErrorBox error={remove.error} title="The channel was not removed" />}
      {channels.length === 0 ? (
        <Empty>No channel yet: alerts have nowhere to go.</Empty>
      ) : (
        <TableScroll label="alert channels">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Kind</th>
                <th scope="col">Target</th>
                <th scope="col">Enabled</th>
                {canWrite && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {channels.map((channel) => (
                <tr key={channel.id} data-testid="channel-row">
                  <td>{channel.name}</td>
                  <td>{channel.kind}</td>
                  <td>{channel.targetHint}</td>
                  <td>{channel.enabled ? 'yes' : 'no'}</td>
                  {canWrite && (
                    <td>
                      <SendTest channel={channel} />{' '}
                      <ConfirmButton
                        label="Remove"
                        className="danger"
                        question={`Remove the channel “${channel.name}”?`}
                        consequence={<p>Rules stop notifying it; its delivery log goes with it.</p>}
                        confirm="Remove channel"
                        onConfirm={() => remove.mutate(channel.id)}
                      />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {canWrite ? (
        <ChannelForm pending={create.isPending} error={create.error} onSave={create.mutate} />
      ) : (
        <p className="muted small">Read only: an operator or admin manages channels and rules.</p>
      )}
    </section>
  );
}

/** Queues a test message and follows its delivery until it succeeded or failed. */
function SendTest({ channel }: { channel: Channel }) {
  const [deliveryId, setDeliveryId] = useState<string | null>(null);
  const send = useMutation({
    mutationFn: () => request<Delivery>('POST', `/v1/alert-channels/${channel.id}/test`),
    onSuccess: (delivery) => setDeliveryId(delivery.id),
  });
  const delivery = useQuery({
    queryKey: ['alert-delivery', deliveryId],
    queryFn: () => get<Delivery>(`/v1/alert-deliveries/${deliveryId}`),
    enabled: deliveryId !== null,
    refetchInterval: (state) => (state.state.data && FINISHED.has(state.state.data.status) ? false : 1000),
  });
  const status = delivery.data?.status;
  return (
    <>
      <button type="button" disabled={send.isPending} onClick={() => send.mutate()}>
        Send test
      </button>{' '}
      <span role="status" aria-live="polite" data-testid="test-status" data-status={status ?? ''}>
        {send.isError ? (
          <span className="bad">{send.error instanceof Error ? send.error.message : 'not sent'}</span>
        ) : status ? (
          <span className={status === 'succeeded' ? 'ok' : status === 'failed' ? 'bad' : ''}>
            {status === 'succeeded' ? 'delivered' : status}
            {delivery.data?.lastError ? `: ${delivery.data.lastError}` : ''}
          </span>
        ) : (
          ''
        )}
      </span>
    </>
  );
}

function ChannelForm({
  pending,
  error,
  onSave,
}: {
  pending: boolean;
  error: Error | null;
  onSave: (body: ChannelBody) => void;
}) {
  const [kind, setKind] = useState<ChannelBody['kind']>('slack');
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    onSave({
      name: String(form.get('name') ?? ''),
      kind,
      target: String(form.get('target') ?? ''),
      enabled: true,
      ...(kind === 'webhook' ? { signature: form.get('signature') as NonNullable<ChannelBody['signature']> } : {}),
    });
  };
  return (
    <form className="form" onSubmit={submit} aria-label="add a channel">
      <h3>Add a channel</h3>
      {error && <ErrorBox error={error} title="The channel was not added" />}
      <label>
        Name <input name="name" required maxLength={100} />
      </label>
      <label>
        Kind{' '}
        <select name="kind" value={kind} onChange={(event) => setKind(event.target.value as ChannelBody['kind'])}>
          {Object.entries(CHANNEL_KINDS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label>
        {kind === 'email' ? 'Addresses' : 'URL'} <input name="target" required maxLength={2048} />
      </label>
      {kind === 'webhook' && (
        <label>
          Signature{' '}
          <select name="signature" defaultValue="standard">
            <option value="standard">Standard Webhooks (webhook-signature)</option>
            <option value="zonewise">Zonewise-Signature</option>
            <option value="both">both</option>
          </select>
        </label>
      )}
      <button type="submit" disabled={pending}>
        Add channel
      </button>
    </form>
  );
}

function RulesPanel({ channels, canWrite }: { channels: Channel[]; canWrite: boolean }) {
  const client = useQueryClient();
  const rules = useQuery({ queryKey: ['alert-rules'], queryFn: () => get<Rules>('/v1/alert-rules') });
  const create = useMutation({
    mutationFn: (body: RuleBody) => request('POST', '/v1/alert-rules', body),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['alert-rules'] }),
  });
  const remove = useMutation({
    mutationFn: (id: string) => request<void>('DELETE', `/v1/alert-rules/${id}`),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['alert-rules'] }),
  });
  const names = new Map(channels.map((channel) => [channel.id, channel.name]));
  return (
    <section className="panel" aria-labelledby="rules-heading">
      <h2 id="rules-heading">Rules</h2>
      {remove.isError && <ErrorBox error={remove.error} title="The rule was not removed" />}
      {!rules.data ? (
        rules.isError ? (
          <ErrorBox error={rules.error} retry={() => rules.refetch()} />
        ) : (
          <Loading what="rules" />
        )
      ) : rules.data.items.length === 0 ? (
        <Empty>No rule yet.</Empty>
      ) : (
        <TableScroll label="alert rules">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">When</th>
                <th scope="col">Channels</th>
                <th scope="col">Quiet hours</th>
                <th scope="col">Open alerts</th>
                {canWrite && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {rules.data.items.map((rule) => (
                <tr key={rule.id} data-testid="rule-row">
                  <td>{rule.name}</td>
                  <td>
                    {RULE_KINDS[rule.kind]}
                    {rule.threshold !== null ? ` (above ${rule.threshold}, estimated)` : ''}
                  </td>
                  <td>{rule.channelIds.map((id) => names.get(id) ?? id).join(', ')}</td>
                  <td>
                    {rule.quietHours
                      ? `${rule.quietHours.start}–${rule.quietHours.end} ${rule.quietHours.timeZone}`
                      : 'none'}
                  </td>
                  <td>{rule.openAlerts}</td>
                  {canWrite && (
                    <td>
                      <ConfirmButton
                        label="Remove"
                        className="danger"
                        question={`Remove the rule “${rule.name}”?`}
                        consequence={<p>Its alerts go with it; no resolve message is sent.</p>}
                        confirm="Remove rule"
                        onConfirm={() => remove.mutate(rule.id)}
                      />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {canWrite && channels.length > 0 && (
        <RuleForm channels={channels} pending={create.isPending} error={create.error} onSave={create.mutate} />
      )}
    </section>
  );
}

function RuleForm({
  channels,
  pending,
  error,
  onSave,
}: {
  channels: Channel[];
  pending: boolean;
  error: Error | null;
  onSave: (body: RuleBody) => void;
}) {
  const [kind, setKind] = useState<RuleBody['kind']>('hints-lost');
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const start = String(form.get('quietStart') ?? '');
    const end = String(form.get('quietEnd') ?? '');
    onSave({
      name: String(form.get('name') ?? ''),
      kind,
      threshold: kind === 'savings-missed' ? Number(form.get('threshold')) : null,
      clusterIds: [],
      channelIds: form.getAll('channel').map(String),
      quietHours: start && end ? { start, end, timeZone: String(form.get('timeZone') || 'UTC') } : null,
      enabled: true,
    });
  };
  return (
    <form className="form" onSubmit={submit} aria-label="add a rule">
      <h3>Add a rule</h3>
      {error && <ErrorBox error={error} title="The rule was not added" />}
      <label>
        Name <input name="name" required maxLength={100} />
      </label>
      <label>
        When{' '}
        <select value={kind} onChange={(event) => setKind(event.target.value as RuleBody['kind'])}>
          {Object.entries(RULE_KINDS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      {kind === 'savings-missed' && (
        <label>
          Threshold (estimated, per month) <input name="threshold" type="number" min={0} step="any" required />
        </label>
      )}
      <fieldset>
        <legend>Channels</legend>
        {channels.map((channel) => (
          <label key={channel.id}>
            <input type="checkbox" name="channel" value={channel.id} defaultChecked /> {channel.name}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Quiet hours (optional)</legend>
        <label>
          From <input name="quietStart" type="time" />
        </label>
        <label>
          to <input name="quietEnd" type="time" />
        </label>
        <label>
          Time zone <input name="timeZone" placeholder="UTC" defaultValue="UTC" />
        </label>
      </fieldset>
      <button type="submit" disabled={pending}>
        Add rule
      </button>
    </form>
  );
}

function OpenAlerts() {
  const alerts = useQuery({
    queryKey: ['alerts', 'open'],
    queryFn: () => get<Alerts>('/v1/alerts?state=open'),
    refetchInterval: 30_000,
  });
  return (
    <section className="panel" aria-labelledby="open-alerts-heading">
      <h2 id="open-alerts-heading">Open alerts</h2>
      {!alerts.data ? (
        alerts.isError ? (
          <ErrorBox error={alerts.error} retry={() => alerts.refetch()} />
        ) : (
          <Loading what="alerts" />
        )
      ) : alerts.data.items.length === 0 ? (
        <Empty>No open alert.</Empty>
      ) : (
        <ul>
          {alerts.data.items.map((alert) => (
            <li key={alert.id}>
              <a href={alert.path}>{alert.summary}</a> <span className="muted small">since {when(alert.openedAt)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function DeliveryLog() {
  const deliveries = useQuery({
    queryKey: ['alert-deliveries'],
    queryFn: () => get<Deliveries>('/v1/alert-deliveries?limit=50'),
    refetchInterval: 5000,
  });
  return (
    <section className="panel" aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Delivery log</h2>
      {!deliveries.data ? (
        deliveries.isError ? (
          <ErrorBox error={deliveries.error} retry={() => deliveries.refetch()} />
        ) : (
          <Loading what="deliveries" />
        )
      ) : deliveries.data.items.length === 0 ? (
        <Empty>Nothing sent yet.</Empty>
      ) : (
        <TableScroll label="alert deliveries">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Channel</th>
                <th scope="col">Message</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last error</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.data.items.map((delivery) => (
                <tr key={delivery.id} data-testid="delivery-row" data-status={delivery.status}>
                  <td>{when(delivery.createdAt)}</td>
                  <td>{delivery.channelName}</td>
                  <td>{delivery.event}</td>
                  <td>{delivery.status}</td>
                  <td>{delivery.attempts}</td>
                  <td>{delivery.lastError ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}
