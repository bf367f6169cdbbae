import { useInfiniteQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { get, query } from '../api';
import { isAdmin } from '../auth';
import { Empty, ErrorBox, Loading } from '../components/states';
import { TableScroll } from '../components/table-scroll';
import { when } from '../format';
import { useIdentity } from '../identity';
import type { AuditEntry, AuditLog } from '../types';
import { useUrlState } from '../url-state';

const PAGE = 50;
/** A pause in typing before the filter applies (the URL is replaced, not pushed, as it changes). */
const TYPING_PAUSE_MS = 300;

const ACTOR_WORDS: Record<AuditEntry['actor']['type'], string> = {
  api_key: 'API key',
  sso: 'signed in',
  bearer_token: 'program token',
  admin_cli: 'admin CLI',
};

/** The audit log (admins only): who changed what in the organization, newest first, 50 at a time. */
export default function AuditLogPage() {
  const identity = useIdentity();
  if (identity.isPending) return <Loading what="your role" />;
  if (!isAdmin(identity.data)) {
    return (
      <>
        <h1>Audit log</h1>
        <Empty>You have the {identity.data?.role ?? 'viewer'} role: the audit log is for admins.</Empty>
      </>
    );
  }
  return <AuditLogView />;
}

function AuditLogView() {
  const [param, setParams] = useUrlState();
  const action = param('action');
  const [typed, setTyped] = useState(action);
  useEffect(() => setTyped(action), [action]);
  useEffect(() => {
    if (typed === action) return;
    const timer = setTimeout(() => setParams({ action: typed.trim() || null }, { replace: true }), TYPING_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [typed, action, setParams]);

  const log = useInfiniteQuery({
    queryKey: ['audit-log', action],
    initialPageParam: null as string | null,
    queryFn: ({ pageParam }) =>
      get<AuditLog>(`/v1/audit-log${query({ action: action || null, limit: PAGE, cursor: pageParam })}`),
    getNextPageParam: (last) => last.nextCursor,
  });
  const entries = log.data?.pages.flatMap((page) => page.entries) ?? [];

  return (
    <>
      <h1>Audit log</h1>
      <p className="muted">
        Every change made in the organization, through the API (keys, people signed in, programs) or the admin CLI,
        newest first. Secrets never appear here.
      </p>
      <div className="controls">
        <label>
          Action
          <input
            value={typed}
            onChange={(event) => setTyped(event.target.value)}
            name="action"
            placeholder="cluster, api_key.create…"
          />
        </label>
        <span className="muted small filters-note">
          An action (<code>api_key.create</code>) or every action on a kind of thing (<code>cluster</code>); applies as
          you type.
        </span>
      </div>
      {!log.data ? (
        log.isError ? (
          <ErrorBox error={log.error} title="The audit log could not be read" retry={() => log.refetch()} />
        ) : (
          <Loading what="the audit log" />
        )
      ) : entries.length === 0 ? (
        <Empty>{action ? `No entry for “${action}”.` : 'Nothing changed yet.'}</Empty>
      ) : (
        <>
          <TableScroll label="audit log entries">
            <table className="data" data-testid="audit-log">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">Action</th>
                  <th scope="col">On</th>
                  <th scope="col">What changed</th>
                </tr>
              </thead>
              <tbody>
                {entries.map((entry) => (
                  <tr key={entry.id} data-entry={entry.id} data-action={entry.action}>
                    <td>{when(entry.at)}</td>
                    <td>
                      {entry.actor.name}
                      <div className="muted small">
                        {ACTOR_WORDS[entry.actor.type]}
                        {entry.actor.role ? ` · ${entry.actor.role}` : ''}
                        {entry.actor.clientAddress ? ` · ${entry.actor.clientAddress}` : ''}
                      </div>
                    </td>
                    <td>
                      <code>{entry.action}</code>
                    </td>
                    <td>
                      {entry.target.type}
                      {entry.target.id && <div className="muted small">{entry.target.id}</div>}
                    </td>
                    <td>
                      <Details details={entry.details} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
          <p className="muted small" data-testid="audit-shown">
            {entries.length} entr{entries.length === 1 ? 'y' : 'ies'} shown{log.hasNextPage ? ', more before them' : ''}
          </p>
          {log.hasNextPage && (
            <button type="button" onClick={() => void log.fetchNextPage()} disabled={log.isFetchingNextPage}>
              {log.isFetchingNextPage ? 'Loading older entries…' : 'Older entries'}
            </button>
          )}
        </>
      )}
    </>
  );
}

function Details({ details }: { details: Record<string, unknown> }) {
  const fields = Object.entries(details);
  if (fields.length === 0) return <span className="muted">—</span>;
  return (
    <ul className="details">
      {fields.map(([name, value]) => (
        <li key={name}>
          <span className="muted">{name}:</span> {typeof value === 'string' ? value : JSON.stringify(value)}
        </li>
      ))}
    </ul>
  );
}
