/** A long text's first part, and a "Show all" button that fetches the turn uncut. */
import type { ClippedText } from "../../../../view/view-types.js";

export function ClippedBlock({ text, onShowAll }: { text: ClippedText; onShowAll: (() => void) | null }) {
  const cut = text.length > text.text.length;
  return (
    <>
      <pre>{text.text}</pre>
      {cut ? (
        <p class="clipped">
          {`… ${text.length - text.text.length} more characters`}
          {onShowAll ? (
            <button type="button" onClick={onShowAll}>
              Show all
            </button>
          ) : null}
        </p>
      ) : null}
    </>
  );
}
