import type { UseQueryResult } from '@tanstack/react-query';
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { memo, useLayoutEffect, useRef, useState } from 'react';
import { SERVICE_FILTERS } from '../../critical-queries';
import { inputsText } from '../../cost-inputs';
import { money, number, percent, when } from '../../format';
import { useLinkClicks } from '../../link-clicks';
import type { ServiceCounts, ServiceList, ServiceSummary } from '../../types';
import { useUrlState } from '../../url-state';
import { HintStateWord } from '../hint-state';
import { Empty, ErrorBox, Loading } from '../states';
import { TableScroll } from '../table-scroll';
import { ServiceFilters } from './service-filters';

/**
 * Pages of up to this many rows are drawn whole; a larger page (up to 500 rows) draws only the rows in
 * view and a screen's worth around them, so scrolling it stays smooth.
 */
export const VIRTUAL_FROM_ROWS = 100;
/** A compact row's height (one line of text), the virtual rows' first estimate before they are measured. */
const ROW_PX = 31;
const COLUMNS = 7;

/**
 * The cluster's Services, filtered, sorted and paged by the API (the URL holds the view): how many match
 * and which of them this page shows, the page's rows, one line each, and the pager.
 */
export function ServicesTable(props: {
  clusterId: string;
  services: UseQueryResult<ServiceList>;
  counts: UseQueryResult<ServiceCounts>;
}) {
  const { services } = props;
  const [param] = useUrlState();
  const filtered = [...SERVICE_FILTERS, 'limit'].some((name) => param(name) !== '');
  return (
    <>
      <ServiceFilters />
      {!services.data && services.isError ? (
        <ErrorBox error={services.error} title="The Services could not be listed" retry={() => services.refetch()} />
      ) : !services.data ? (
        <Loading what="Services" />
      ) : services.data.services.length === 0 ? (
        <Empty>
          {filtered
            ? 'No Service matches these filters: clear one to see more.'
            : 'No Service yet: the agent has not sent a processed snapshot of this cluster.'}
        </Empty>
      ) : (
        <ServicesPage
          clusterId={props.clusterId}
          list={services.data}
          fetching={services.isFetching}
          counts={props.counts.data}
        />
      )}
    </>
  );
}

function ServicesPage(props: { clusterId: string; list: ServiceList; fetching: boolean; counts?: ServiceCounts }) {
  const [param, setParams] = useUrlState();
  const followLink = useLinkClicks();
  const rows = props.list.services;
  const limit = Number(param('limit')) || 50;
  const page = Math.max(1, Number(param('page')) || 1);
  const first = (page - 1) * limit + 1;
  const total = props.counts?.total;
  const virtual = rows.length >= VIRTUAL_FROM_ROWS;
  return (
    <>
      <p className="muted small" aria-live="polite" data-testid="services-shown">
        Services {number(first)}–{number(first + rows.length - 1)}
        {total === undefined
          ? ''
          : ` of ${number(total)} (page ${number(page)} of ${number(Math.max(1, Math.ceil(total / limit)))})`}{' '}
        · as of {when(props.list.asOf)}
        {props.fetching ? ' · loading…' : ''}
      </p>
      <TableScroll label="Services">
        <table
          className="data compact"
          data-testid="services-table"
          onClick={followLink}
          aria-rowcount={virtual ? rows.length + 1 : undefined}
        >
          <thead>
            <tr aria-rowindex={virtual ? 1 : undefined}>
              <th scope="col">Service</th>
              <th scope="col">Routing</th>
              <th scope="col">Hints</th>
              <th scope="col" className="num">
                Ready
              </th>
              <th scope="col" className="num">
                Cross-zone
              </th>
              <th scope="col" className="num">
                Cost / month
              </th>
              <th scope="col" className="num">
                Saved / missed a month
              </th>
            </tr>
          </thead>
          {virtual ? (
            <VirtualRows clusterId={props.clusterId} rows={rows} />
          ) : (
            <tbody>
              {rows.map((service) => (
                <ServiceRow
                  key={`${service.namespace}/${service.name}`}
                  clusterId={props.clusterId}
                  service={service}
                />
              ))}
            </tbody>
          )}
        </table>
      </TableScroll>
      <nav className="controls" aria-label="pages of Services">
        <button type="button" disabled={page === 1} onClick={() => setParams({ cursor: null, page: null })}>
          First page
        </button>
        <button type="button" disabled={page === 1} onClick={() => history.back()}>
          Previous page
        </button>
        <button
          type="button"
          disabled={!props.list.nextCursor}
          onClick={() => setParams({ cursor: props.list.nextCursor, page: String(page + 1) })}
        >
          Next page
        </button>
      </nav>
    </>
  );
}

/**
 * A large page's rows, drawn as the window scrolls over them (TanStack Virtual): rows out of view are
 * spacer height, the rows in view and OVERSCAN around them are real, each measured once drawn.
 */
function VirtualRows({ clusterId, rows }: { clusterId: string; rows: ServiceSummary[] }) {
  const body = useRef<HTMLTableSectionElement>(null);
  const [offset, setOffset] = useState(0);
  useLayoutEffect(() => {
    if (body.current) setOffset(body.current.getBoundingClientRect().top + window.scrollY);
  }, []);
  const virtualizer = useWindowVirtualizer({
    count: rows.length,
    estimateSize: () => ROW_PX,
    overscan: 20,
    scrollMargin: offset,
  });
  const items = virtualizer.getVirtualItems();
  const before = items.length > 0 ? items[0].start - offset : 0;
  const after = items.length > 0 ? virtualizer.getTotalSize() - (items[items.length - 1].end - offset) : 0;
  return (
    <tbody ref={body}>
      {before > 0 && <Spacer height={before} />}
      {items.map((item) => {
        const service = rows[item.index];
        return (
          <ServiceRow
            key={`${service.namespace}/${service.name}`}
            clusterId={clusterId}
            service={service}
            index={item.index}
            measure={virtualizer.measureElement}
          />
        );
      })}
      {after > 0 && <Spacer height={after} />}
    </tbody>
  );
}

function Spacer({ height }: { height: number }) {
  return (
    <tr aria-hidden="true" className="spacer" style={{ height }}>
      <td colSpan={COLUMNS} />
    </tr>
  );
}

/** Whether the traffic behind a cost was measured by the cluster's source or estimated: one short tag. */
function trafficTag(service: ServiceSummary) {
  const measured = service.monthly.inputs.trafficSource === 'measured';
  return (
    <span
      className={measured ? 'tag measured' : 'tag'}
      data-traffic={measured ? 'measured' : 'estimated'}
      title={`${measured ? 'measured' : 'estimated'} traffic: ${inputsText(service)}`}
    >
      {measured ? 'measured' : 'est.'}
    </span>
  );
}

// A refreshed page keeps unchanged Services as the same objects: their rows are not drawn again.
// Each cell's text is one string (one text node), not a node per JSX expression: a page is drawn at once.
const ServiceRow = memo(function ServiceRow(props: {
  clusterId: string;
  service: ServiceSummary;
  index?: number;
  measure?: (element: Element | null) => void;
}) {
  const { service } = props;
  const name = `${service.namespace}/${service.name}`;
  return (
    <tr
      data-service={name}
      data-index={props.index}
      aria-rowindex={props.index === undefined ? undefined : props.index + 2}
      ref={props.measure}
    >
      <td>
        <a href={`/clusters/${props.clusterId}/services/${name}`}>{name}</a>
        {service.opportunity && <span className="tag opportunity">opportunity</span>}
      </td>
      <td>{service.routing}</td>
      <td className="reason" title={service.hints.reason ?? undefined}>
        <HintStateWord state={service.hints.state} />
        {service.hints.reason && <span className="muted">{` ${service.hints.reason}`}</span>}
      </td>
      <td className="num">{service.readyEndpoints}</td>
      <td className="num">{percent(service.crossZone.withHints)}</td>
      <td className="num">
        {`${money(service.monthly.withHints.cost)} `}
        {trafficTag(service)}
      </td>
      <td className="num">
        {`${money(service.monthly.realizedSavings.cost)} / ${money(service.monthly.missedSavings?.cost)}`}
      </td>
    </tr>
  );
});
