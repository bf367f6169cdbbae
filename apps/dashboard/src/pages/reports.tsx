import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { TableScroll } from '../components/table-scroll';
import { type FormEvent, useState } from 'react';
import { ApiError, download, get, query, request } from '../api';
import { ConfirmButton } from '../components/confirm-button';
import { Empty, ErrorBox, Loading } from '../components/states';
import { money, percent, when } from '../format';
import { authHeaders, isAdmin, isOperator } from '../auth';
import { useIdentity } from '../identity';
import { useUrlState } from '../url-state';
import { Secret } from '../components/secret';
import { Webhook } from '../components/reports/webhook';
import { ReportChannels } from '../components/reports/channels';
import type { Report, Schedule, ScheduleAnswer } from '../types';

export default function ReportsPage() {
  const identity = useIdentity();
  const admin = isAdmin(identity.data);
  const operator = isOperator(identity.data);
  const [param, setParams] = useUrlState();
  const scheduleId = param('scheduleId');
  const schedules = useQuery({
    queryKey: ['schedules'],
    queryFn: () => get<{ schedules: Schedule[] }>('/v1/report-schedules?limit=500'),
  });
  const reportsPath = `/v1/reports${query({ scheduleId, limit: 100 })}`;
  const reports = useQuery({
    queryKey: ['reports', reportsPath],
    queryFn: () => get<{ reports: Report[] }>(reportsPath),
    // A report being made, or being delivered, is polled until it is ready or failed.
    refetchInterval: (state) =>
      state.state.data?.reports.some((report) => report.status === 'pending' || report.delivery?.status === 'pending')
        ? 2000
        : false,
  });

  return (
    <>
      <h1>Reports</h1>
      <h2>Schedules</h2>
      {admin && <CreateSchedule />}
      {!schedules.data ? (
        schedules.isError ? (
          <ErrorBox error={schedules.error} retry={() => schedules.refetch()} />
        ) : (
          <Loading what="schedules" />
        )
      ) : schedules.data.schedules.length === 0 ? (
        <Empty>
          No schedule yet
          {admin ? ': create one above, then run it now to see a report.' : ': an admin key can create one.'}
        </Empty>
      ) : (
        <TableScroll label="report schedules">
          <table className="data" data-testid="schedules">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">When</th>
                <th scope="col">Scope</th>
                <th scope="col">Formats</th>
                <th scope="col">Enabled</th>
                <th scope="col">Webhook</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {schedules.data.schedules.map((schedule) => (
                <ScheduleRow
                  key={schedule.id}
                  schedule={schedule}
                  admin={admin}
                  operator={operator}
                  onShow={() => setParams({ scheduleId: schedule.id })}
                />
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {scheduleId &&
        schedules.data?.schedules
          .filter((schedule) => schedule.id === scheduleId)
          .map((schedule) => (
            <div key={schedule.id}>
              <Webhook schedule={schedule} admin={admin} />
              <ReportChannels schedule={schedule} admin={admin} />
            </div>
          ))}
      <h2>
        Reports
        {scheduleId && schedules.data
          ? ` of “${schedules.data.schedules.find((s) => s.id === scheduleId)?.name ?? scheduleId}”`
          : ''}
      </h2>
      {scheduleId && (
        <button type="button" onClick={() => setParams({ scheduleId: null })}>
          Show every schedule's reports
        </button>
      )}
      {!reports.data ? (
        reports.isError ? (
          <ErrorBox error={reports.error} retry={() => reports.refetch()} />
        ) : (
          <Loading what="reports" />
        )
      ) : reports.data.reports.length === 0 ? (
        <Empty>No report yet: reports appear when a schedule's period ends, or when you run one now.</Empty>
      ) : (
        <TableScroll label="reports">
          <table className="data" data-testid="reports">
            <thead>
              <tr>
                <th scope="col">Schedule</th>
                <th scope="col">Period</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Cost as routed
                </th>
                <th scope="col" className="num">
                  Saved over the period
                </th>
                <th scope="col">Webhook</th>
                <th scope="col">Open</th>
              </tr>
            </thead>
            <tbody>
              {reports.data.reports.map((report) => (
                <ReportRow key={report.id} report={report} />
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </>
  );
}

function ScheduleRow({
  schedule,
  admin,
  operator,
  onShow,
}: {
  schedule: Schedule;
  admin: boolean;
  operator: boolean;
  onShow: () => void;
}) {
  const client = useQueryClient();
  const refresh = () => {
    void client.invalidateQueries({ queryKey: ['schedules'] });
    void client.invalidateQueries({ queryKey: ['reports'] });
  };
  const run = useMutation({
    mutationFn: () => request('POST', `/v1/report-schedules/${schedule.id}/run`, {}),
    onSuccess: refresh,
  });
  const toggle = useMutation({
    mutationFn: () => request('PATCH', `/v1/report-schedules/${schedule.id}`, { enabled: !schedule.enabled }),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: () => request('DELETE', `/v1/report-schedules/${schedule.id}`),
    onSuccess: refresh,
  });
  const failure = run.error ?? toggle.error ?? remove.error;
  return (
    <tr data-schedule={schedule.name}>
      <td>
        <button type="button" className="sort" onClick={onShow}>
          {schedule.name}
        </button>
      </td>
      <td>
        {schedule.cadence}
        <div className="muted small">
          {schedule.cron} ({schedule.timeZone})
        </div>
      </td>
      <td>{schedule.scope.kind === 'fleet' ? 'the whole fleet' : `${schedule.scope.clusterIds.length} clusters`}</td>
      <td>{schedule.formats.join(', ')}</td>
      <td>{schedule.enabled ? 'yes' : 'no'}</td>
      <td>
        {schedule.webhook ? (
          <span className="small">
            <code>{schedule.webhook.url}</code>
            <div className="muted">secret {schedule.webhook.secretPrefix}…</div>
          </span>
        ) : (
          <span className="muted">none</span>
        )}
      </td>
      <td>
        {operator && (
          <>
            <button type="button" onClick={() => run.mutate()} disabled={run.isPending}>
              Run now
            </button>{' '}
          </>
        )}
        <button type="button" onClick={onShow}>
          Recipients
        </button>{' '}
        {admin ? (
          <>
            <button type="button" onClick={() => toggle.mutate()} disabled={toggle.isPending}>
              {schedule.enabled ? 'Disable' : 'Enable'}
            </button>{' '}
            <ConfirmButton
              label="Delete"
              className="danger"
              question={`Delete the schedule “${schedule.name}”?`}
              consequence={
                <p>
                  The schedule stops, and every report it made is deleted with it (HTML, CSV and JSON). This cannot be
                  undone.
                </p>
              }
              confirm="Delete schedule"
              onConfirm={() => remove.mutate()}
            />
          </>
        ) : (
          !operator && <span className="muted small">read only (viewer)</span>
        )}
        {failure && <ErrorBox error={failure} />}
      </td>
    </tr>
  );
}

function ReportRow({ report }: { report: Report }) {
  const [failure, setFailure] = useState<unknown>(null);
  const totals = report.summary?.totals;

  /** The HTML report in a new tab: fetched with the key (never in a URL), shown from a local blob. */
  async function openHtml() {
    const tab = window.open('', '_blank');
    try {
      const response = await fetch(report.downloads.html, { headers: authHeaders('GET') });
      if (!response.ok) throw new ApiError(response.status, `the API answered ${response.status}`, null);
      const url = URL.createObjectURL(new Blob([await response.text()], { type: 'text/html' }));
      if (tab) tab.location.href = url;
      else window.location.href = url;
    } catch (error) {
      tab?.close();
      setFailure(error);
    }
  }

  const save = (format: string) =>
    download(report.downloads[format], `zonewise-report-${report.period.start.slice(0, 10)}.${format}`).catch(
      setFailure,
    );

  return (
    <tr data-report={report.id}>
      <td>{report.schedule.name}</td>
      <td>
        {report.period.label}
        {/* The API's label of a partial period already says "(so far)": said once. */}
        {report.partial && !report.period.label.includes('so far') && <span className="muted small"> (so far)</span>}
        <div className="muted small">
          {when(report.period.start)} → {when(report.period.end)}
        </div>
      </td>
      <td>
        <span className={report.status === 'failed' ? 'bad' : report.status === 'ready' ? 'ok' : ''}>
          {report.status}
        </span>
        {report.error && <div className="small bad">{report.error}</div>}
      </td>
      <td className="num">
        {money(totals?.withHints?.cost)}
        {totals?.measured && (
          <div className="muted small" data-testid="report-measured">
            {money(totals.measured.withHints.cost)} measured ({percent(totals.measured.withHintsCostShare)}), the rest
            estimated
          </div>
        )}
      </td>
      <td className="num">{money(totals?.realizedSavings?.cost)}</td>
      <td>
        <DeliveryCell delivery={report.delivery} />
      </td>
      <td>
        {report.status === 'ready' && (
          <>
            {report.downloads.html && (
              <button type="button" onClick={() => void openHtml()}>
                Open HTML
              </button>
            )}{' '}
            {['csv', 'json']
              .filter((format) => report.downloads[format])
              .map((format) => (
                <button key={format} type="button" onClick={() => void save(format)}>
                  {format.toUpperCase()}
                </button>
              ))}
          </>
        )}
        {failure !== null && <ErrorBox error={failure} />}
      </td>
    </tr>
  );
}

function CreateSchedule() {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [cadence, setCadence] = useState('weekly');
  const [cron, setCron] = useState('');
  const [timeZone, setTimeZone] = useState('UTC');
  const [webhookUrl, setWebhookUrl] = useState('');
  const [issued, setIssued] = useState<{ name: string; secret: string } | null>(null);
  const create = useMutation({
    mutationFn: (body: unknown) => request<ScheduleAnswer>('POST', '/v1/report-schedules', body),
    onSuccess: (answer) => {
      setName('');
      setWebhookUrl('');
      setIssued(answer.webhookSecret ? { name: answer.schedule.name, secret: answer.webhookSecret } : null);
      void client.invalidateQueries({ queryKey: ['schedules'] });
    },
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate({
      name,
      cadence,
      timeZone,
      ...(cadence === 'cron' ? { cron } : {}),
      ...(webhookUrl ? { webhook: { url: webhookUrl } } : {}),
    });
  }
  return (
    <form className="controls panel" onSubmit={submit} aria-label="new schedule">
      <label>
        Name
        <input value={name} onChange={(event) => setName(event.target.value)} name="schedule-name" required />
      </label>
      <label>
        Cadence
        <select value={cadence} onChange={(event) => setCadence(event.target.value)} name="cadence">
          <option value="daily">daily</option>
          <option value="weekly">weekly</option>
          <option value="monthly">monthly</option>
          <option value="cron">cron expression</option>
        </select>
      </label>
      {cadence === 'cron' && (
        <label>
          Cron
          <input value={cron} onChange={(event) => setCron(event.target.value)} name="cron" placeholder="0 6 * * 1" />
        </label>
      )}
      <label>
        Time zone
        <input value={timeZone} onChange={(event) => setTimeZone(event.target.value)} name="timeZone" />
      </label>
      <label>
        Webhook URL (optional)
        <input
          value={webhookUrl}
          onChange={(event) => setWebhookUrl(event.target.value)}
          name="webhookUrl"
          type="url"
          placeholder="https://hooks.example/zonewise"
        />
      </label>
      <button type="submit" className="primary" disabled={create.isPending}>
        Create schedule
      </button>
      {create.isError && <ErrorBox error={create.error} title="The schedule was refused" />}
      {issued && (
        <Secret title={`Webhook signing secret of “${issued.name}”.`} secret={issued.secret}>
          <p>Each report is POSTed signed with it: the receiver checks the signature with this secret.</p>
          <button type="button" onClick={() => setIssued(null)}>
            I have copied it
          </button>
        </Secret>
      )}
    </form>
  );
}

/** A report's webhook delivery: delivered, retrying or failed, with the receiver's last answer. */
function DeliveryCell({ delivery }: { delivery: Report['delivery'] }) {
  if (!delivery) return <span className="muted">—</span>;
  const answered = delivery.lastStatusCode !== null ? ` (HTTP ${delivery.lastStatusCode})` : '';
  return (
    <span data-testid="delivery" data-delivery={delivery.status}>
      <span className={delivery.status === 'failed' ? 'bad' : delivery.status === 'succeeded' ? 'ok' : ''}>
        {delivery.status === 'succeeded' ? 'delivered' : delivery.status === 'pending' ? 'sending' : 'failed'}
      </span>
      {answered}
      <div className="muted small">
        {delivery.attempts} attempt{delivery.attempts === 1 ? '' : 's'}
        {delivery.deliveredAt ? `, ${when(delivery.deliveredAt)}` : ''}
        {delivery.nextAttemptAt && delivery.status === 'pending' ? `, next ${when(delivery.nextAttemptAt)}` : ''}
      </div>
      {delivery.lastError && <div className="small bad">{delivery.lastError}</div>}
    </span>
  );
}
