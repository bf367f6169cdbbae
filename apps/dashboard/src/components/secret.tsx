import type { ReactNode } from 'react';

/** A secret the API shows once: in this panel until the page is left, never stored. */
export function Secret({ title, secret, children }: { title: string; secret: string; children?: ReactNode }) {
  return (
    <div className="success" role="status" data-testid="secret">
      <strong>{title}</strong> It is shown only now: copy it.
      <code className="block" data-testid="secret-value">
        {secret}
      </code>
      {children}
    </div>
  );
}
