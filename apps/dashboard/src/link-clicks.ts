import { type MouseEvent, useCallback } from 'react';
import { useLocation } from 'wouter';

/**
 * One click handler, on a table, for the in-app links of its rows: each row holds a plain anchor
 * instead of a router link (a component with its own location subscription and event hooks, which made
 * up much of drawing a page of rows). A plain left click navigates in the app, as a router link would;
 * a click with a modifier or another button is the browser's (new tab, new window).
 */
export function useLinkClicks(): (event: MouseEvent<HTMLElement>) => void {
  const [, navigate] = useLocation();
  return useCallback(
    (event: MouseEvent<HTMLElement>) => {
      if (event.defaultPrevented || event.button !== 0) return;
      if (event.metaKey || event.ctrlKey || event.altKey || event.shiftKey) return;
      const anchor = (event.target as Element).closest('a');
      if (!anchor || !event.currentTarget.contains(anchor) || anchor.target || anchor.origin !== location.origin)
        return;
      event.preventDefault();
      navigate(`${anchor.pathname}${anchor.search}`);
    },
    [navigate],
  );
}
