import { type ReactNode, useId, useRef } from 'react';

/**
 * A button for an action that cannot be undone: it opens a modal dialog that names the consequence, and
 * the action runs only on its confirming button (Escape, Cancel or a click elsewhere do nothing). A
 * native <dialog>: focus moves into it and returns to the button, and the page behind is inert.
 */
export function ConfirmButton(props: {
  /** The button on the page. */
  label: string;
  /** The dialog's question, e.g. "Rotate the agent token of prod-eu?". */
  question: string;
  /** What happens, in plain words: the dialog's body. */
  consequence: ReactNode;
  /** The confirming button's label, e.g. "Rotate token". */
  confirm: string;
  onConfirm: () => void;
  disabled?: boolean;
  className?: string;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const bodyId = useId();
  return (
    <>
      <button
        type="button"
        className={props.className}
        disabled={props.disabled}
        onClick={() => dialog.current?.showModal()}
      >
        {props.label}
      </button>
      <dialog ref={dialog} className="confirm" aria-labelledby={titleId} aria-describedby={bodyId}>
        <form
          method="dialog"
          onSubmit={(event) => {
            const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
            if (submitter?.value === 'confirm') props.onConfirm();
          }}
        >
          <h2 id={titleId}>{props.question}</h2>
          <div id={bodyId}>{props.consequence}</div>
          <div className="controls">
            <button type="submit" value="cancel" autoFocus>
              Cancel
            </button>
            <button type="submit" value="confirm" className="danger-solid">
              {props.confirm}
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}
