import type { ReactNode } from 'react';
import { EstimateBadge } from './states';

/** One figure of a summary: its label, its value, and a line saying what it is. */
export function Tile(props: {
  label: string;
  value: ReactNode;
  testId: string;
  estimate?: boolean;
  inputs?: string;
  children?: ReactNode;
}) {
  return (
    <div className="tile" data-testid={props.testId}>
      <div className="tile-label">
        {props.label} {props.estimate && props.inputs && <EstimateBadge inputs={props.inputs} />}
      </div>
      <div className="tile-value">{props.value}</div>
      {props.children && <div className="muted small">{props.children}</div>}
    </div>
  );
}
