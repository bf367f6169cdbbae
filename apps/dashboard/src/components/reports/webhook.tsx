import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { request } from '../../api';
import { ConfirmButton } from '../confirm-button';
import { Secret } from '../secret';
import { ErrorBox } from '../states';
import type { Schedule, ScheduleAnswer } from '../../types';

/**
 * Where a schedule's reports go: its webhook (each report POSTed in its formats, signed with the
 * schedule's secret). An admin sets, changes or removes the address and rotates the secret; a new secret
 * is shown once.
 */
export function Webhook({ schedule, admin }: { schedule: Schedule; admin: boolean }) {
  const client = useQueryClient();
  const [url, setUrl] = useState(schedule.webhook?.url ?? '');
  const [secret, setSecret] = useState<string | null>(null);
  const change = useMutation({
    mutationFn: (body: unknown) => request<ScheduleAnswer>('PATCH', `/v1/report-schedules/${schedule.id}`, body),
    onSuccess: (answer) => {
      setSecret(answer.webhookSecret);
      if (!answer.schedule.webhook) setUrl('');
      void client.invalidateQueries({ queryKey: ['schedules'] });
    },
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    change.mutate({ webhook: { url } });
  }
  return (
    <section className="panel" aria-labelledby="webhook-heading" data-testid="webhook">
      <h2 id="webhook-heading">Recipients of “{schedule.name}”</h2>
      <p>
        {schedule.webhook ? (
          <>
            Each report is POSTed to <code data-testid="webhook-url">{schedule.webhook.url}</code>, signed with the
            secret <code>{schedule.webhook.secretPrefix}…</code>; the reports below show each delivery.
          </>
        ) : (
          'No webhook: the reports are kept here to download, and sent nowhere.'
        )}
      </p>
      {admin ? (
        <>
          <form className="controls" onSubmit={submit} aria-label="webhook">
            <label className="wide">
              Webhook URL
              <input
                value={url}
                onChange={(event) => setUrl(event.target.value)}
                name="webhook"
                type="url"
                required
                placeholder="https://hooks.example/zonewise"
              />
            </label>
            <button type="submit" className="primary" disabled={change.isPending}>
              {schedule.webhook ? 'Change webhook' : 'Set webhook'}
            </button>
          </form>
          {schedule.webhook && (
            <div className="controls">
              <ConfirmButton
                label="Rotate secret"
                question={`Rotate the webhook secret of “${schedule.name}”?`}
                consequence={
                  <p>
                    The next reports are signed with a new secret, shown once on this page: a receiver still checking
                    the old one rejects them until it is given the new one.
                  </p>
                }
                confirm="Rotate secret"
                onConfirm={() => change.mutate({ rotateWebhookSecret: true })}
              />
              <ConfirmButton
                label="Remove webhook"
                className="danger"
                question={`Stop sending the reports of “${schedule.name}”?`}
                consequence={
                  <p>
                    The webhook and its secret are deleted: the next reports are made and kept here, but sent nowhere.
                  </p>
                }
                confirm="Remove webhook"
                onConfirm={() => change.mutate({ webhook: null })}
              />
            </div>
          )}
        </>
      ) : (
        <p className="muted small">Read only: an admin sets where reports go.</p>
      )}
      {change.isError && <ErrorBox error={change.error} title="The webhook was not changed" />}
      {secret && (
        <Secret title={`Webhook signing secret of “${schedule.name}”.`} secret={secret}>
          <button type="button" onClick={() => setSecret(null)}>
            I have copied it
          </button>
        </Secret>
      )}
    </section>
  );
}
