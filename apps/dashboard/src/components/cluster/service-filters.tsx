import { memo, useEffect, useRef, useState } from 'react';
import { useUrlState } from '../../url-state';
import { HINT_STATE_WORDS } from '../../vocabulary';

/** How long typing may pause before a text filter applies: a word typed at once is one request, not one per key. */
export const TYPING_PAUSE_MS = 300;

/** A change of filter or sort starts again from the first page: a cursor belongs to its own combination. */
const FIRST_PAGE = { cursor: null, page: null };

/**
 * A text filter that applies as you type, once typing pauses (TYPING_PAUSE_MS), replacing the URL's
 * entry (one history entry per filter, not per keystroke). A change of the URL from elsewhere (back,
 * forward, a link) is shown in the box.
 */
function TextFilter({ name, label }: { name: string; label: string }) {
  const [param, setParams] = useUrlState();
  const applied = param(name);
  const [text, setText] = useState(applied);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => setText(applied), [applied]);
  useEffect(() => () => void (timer.current && clearTimeout(timer.current)), []);
  const type = (value: string) => {
    setText(value);
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(
      () => setParams({ [name]: value.trim(), ...FIRST_PAGE }, { replace: applied !== '' }),
      TYPING_PAUSE_MS,
    );
  };
  return (
    <label>
      {label}
      <input type="search" value={text} onChange={(event) => type(event.target.value)} name={name} />
    </label>
  );
}

/** The Services table's filters, sort and page size: drawn again only when the URL changes, not with each answer. */
export const ServiceFilters = memo(function ServiceFilters() {
  const [param, setParams] = useUrlState();
  const change = (name: string, value: string) => setParams({ [name]: value, ...FIRST_PAGE });
  const select = (name: string, label: string, options: [string, string][], fallback = '') => (
    <label>
      {label}
      <select value={param(name) || fallback} onChange={(event) => change(name, event.target.value)} name={name}>
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <form className="controls" onSubmit={(event) => event.preventDefault()} aria-label="Service filters">
      <TextFilter name="namespace" label="Namespace" />
      {select('routing', 'Routing', [
        ['', 'any'],
        ...['Auto', 'PreferClose', 'PreferSameZone', 'PreferSameNode', 'None'].map((mode): [string, string] => [
          mode,
          mode,
        ]),
      ])}
      {select('hintState', 'Hint state', [['', 'any'], ...Object.entries(HINT_STATE_WORDS)])}
      <TextFilter name="reason" label="Reason contains" />
      {select('opportunity', 'Opportunity', [
        ['', 'any'],
        ['true', 'only opportunities'],
        ['false', 'no opportunities'],
      ])}
      {select(
        'sort',
        'Sort by',
        [
          ['name', 'name'],
          ['cost', 'cost'],
          ['savings', 'savings'],
        ],
        'name',
      )}
      {select('order', 'Order', [
        ['', 'default'],
        ['asc', 'ascending'],
        ['desc', 'descending'],
      ])}
      {select(
        'limit',
        'Per page',
        ['25', '50', '100', '200', '500'].map((size): [string, string] => [size, size]),
        '50',
      )}
      <p className="muted small filters-note">Filters apply as you type; every view is in the URL.</p>
    </form>
  );
});
