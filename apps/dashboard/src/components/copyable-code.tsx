import { useState } from 'react';

/** A code block with a button that puts its text on the clipboard. */
export function CopyableCode({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const copy = () =>
    navigator.clipboard.writeText(text).then(
      () => setCopied('yes'),
      // Without clipboard permission (plain http, a denied prompt) the text can still be selected by hand.
      () => setCopied('failed'),
    );
  return (
    <div className="copyable">
      <code className="block" aria-label={label}>
        {text}
      </code>
      <button type="button" onClick={copy}>
        {copied === 'yes' ? 'Copied' : copied === 'failed' ? 'Copy refused: select the text' : 'Copy'}
      </button>
    </div>
  );
}
