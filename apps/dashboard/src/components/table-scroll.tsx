import type { ReactNode } from 'react';

/**
 * A wide table's own sideways scroll: on a phone the table scrolls inside this box and the page never
 * does, so every control outside it stays on screen. Focusable, so a keyboard can scroll it too.
 */
export function TableScroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-scroll" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
