import { type HintState, hintStateWord } from '../vocabulary';

const CLASSES: Record<HintState, string> = { populated: 'ok', removed: 'bad', none: '' };

/** A hint state in the dashboard's word for it, green when populated and red when refused. */
export function HintStateWord({ state }: { state: string }) {
  return (
    <span className={CLASSES[state as HintState] ?? ''} data-hint-state={state}>
      {hintStateWord(state)}
    </span>
  );
}
