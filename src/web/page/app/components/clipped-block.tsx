/** A long text's first part, and a "Show all" button that fetches the turn uncut, or a link that downloads the whole. */
import { useContext } from "preact/hooks";
import type { ClippedText } from "../../../../view/view-types.js";
import { sizeText, WholeLink } from "../whole-link.js";

export function ClippedBlock({ text, onShowAll }: { text: ClippedText; onShowAll: (() => void) | null }) {
  const cut = text.length > text.text.length;
  return (
    <>
      <pre>{text.text}</pre>
      {text.whole ? (
        <WholeNote whole={text.whole} />
      ) : cut ? (
        <ClippedNote text={`… ${text.length - text.text.length} more characters`} onShowAll={onShowAll} />
      ) : null}
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

/**
 * A text too long to show (or to hold in the page): its start is shown, and its whole line of
 * the recording is downloaded, never drawn.
 */
export function WholeNote({ whole }: { whole: NonNullable<ClippedText["whole"]> }) {
  const href = useContext(WholeLink);
  const size = sizeText(whole.bytes);
  return (
    <p class="clipped">
      … cut here: the whole is {size}
      {href ? (
        <a href={href(whole)} download>
          Download whole ({size})
        </a>
      ) : (
        " (nudge web offers it as a download)"
      )}
    </p>
  );
}
