import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { get, request } from '../../api';
import { ErrorBox, Loading } from '../states';
import type { Answer, Schedule, ScheduleAnswer } from '../../types';

type Channels = Answer<'/v1/alert-channels'>;

/**
 * Which of the organization's alert channels (Slack, Teams, email, signed webhooks) also deliver a
 * schedule's reports (docs/reports.md, "Alert channels"). Everyone sees them; an admin ticks and saves.
 */
export function ReportChannels({ schedule, admin }: { schedule: Schedule; admin: boolean }) {
  const client = useQueryClient();
  const channels = useQuery({ queryKey: ['alert-channels'], queryFn: () => get<Channels>('/v1/alert-channels') });
  const [chosen, setChosen] = useState<string[]>(schedule.channelIds);
  const save = useMutation({
    mutationFn: (channelIds: string[]) =>
      request<ScheduleAnswer>('PATCH', `/v1/report-schedules/${schedule.id}`, { channelIds }),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['schedules'] }),
  });
  if (!channels.data) {
    return channels.isError ? (
      <ErrorBox error={channels.error} retry={() => channels.refetch()} />
    ) : (
      <Loading what="alert channels" />
    );
  }
  const byId = new Map(channels.data.items.map((channel) => [channel.id, channel]));
  const toggle = (id: string, on: boolean) =>
    setChosen((ids) => (on ? [...ids, id] : ids.filter((other) => other !== id)));
  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate(chosen);
  }
  return (
    <section className="panel" aria-labelledby="report-channels-heading" data-testid="report-channels">
      <h3 id="report-channels-heading">Alert channels</h3>
      {schedule.channelIds.length === 0 ? (
        <p className="muted">No alert channel delivers these reports.</p>
      ) : (
        <ul data-testid="report-channel-list">
          {schedule.channelIds.map((id) => (
            <li key={id} data-channel={id}>
              {byId.get(id)?.name ?? 'a deleted channel'} <span className="muted small">{byId.get(id)?.kind}</span>
            </li>
          ))}
        </ul>
      )}
      {admin &&
        (channels.data.items.length === 0 ? (
          <p className="muted">No alert channel yet: create one on the Alerts page to send reports there.</p>
        ) : (
          <form className="controls" onSubmit={submit} aria-label="report channels">
            <fieldset>
              <legend>Also send the reports to</legend>
              {channels.data.items.map((channel) => (
                <label key={channel.id}>
                  <input
                    type="checkbox"
                    name="report-channel"
                    value={channel.id}
                    checked={chosen.includes(channel.id)}
                    onChange={(event) => toggle(channel.id, event.target.checked)}
                  />{' '}
                  {channel.name}
                </label>
              ))}
            </fieldset>
            <button type="submit" className="primary" disabled={save.isPending}>
              Save channels
            </button>
          </form>
        ))}
      {save.isError && <ErrorBox error={save.error} title="The channels were refused" />}
    </section>
  );
}
