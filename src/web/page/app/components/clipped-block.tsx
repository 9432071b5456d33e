/** A long text's first part, and a "Show all" button that fetches the turn uncut. */
import type { ClippedText } from "../../../../view/view-types.js";

export function ClippedBlock({ text, onShowAll }: { text: ClippedText; onShowAll: (() => void) | null }) {
  const cut = text.length > text.text.length;
  return (
    <>
      <pre>{text.text}</pre>
      {cut ? <ClippedNote text={`… ${text.length - text.text.length} more characters`} onShowAll={onShowAll} /> : null}
    </>
  );
}

/** Where a text or a diff was cut: what is missing, and the button that fetches it whole. */
export function ClippedNote({ text, onShowAll }: { text: string; onShowAll: (() => void) | null }) {
  return (
    <p class="clipped">
      {text}
      {onShowAll ? (
        <button type="button" onClick={onShowAll}>
          Show all
        </button>
      ) : null}
    </p>
  );
}
