/**
 * A turn's entries by kind. Every string is the session's: rendered as text (Preact escapes it),
 * except Claude's markdown, which goes through the sanitizer. An entry of a kind this page does
 * not know is shown as its JSON, collapsed: a newer server never breaks an older page.
 */
import type { Entry } from "../../../../view/view-types.js";
import { MARKDOWN_MAX, renderMarkdown } from "../markdown.js";
import { ClippedBlock } from "./clipped-block.js";
import { ToolCall } from "./tool-call.js";
import { openByDefault } from "../disclosure.js";
import { useCopyButtons } from "../copy-code.js";
import { markdownPieces } from "../markdown-pieces.js";
import { whenNear } from "../near-screen.js";
import { useEffect, useRef, useState } from "preact/hooks";

/** `inFlight`: the turn is still running, so a question without an answer is still being asked. */
export function Entries({
  entries,
  onShowAll,
  inFlight = false,
}: {
  entries: Entry[];
  onShowAll: (() => void) | null;
  inFlight?: boolean;
}) {
  return (
    <div class="entries">
      {entries.map((e, i) => (
        <EntryView key={i} entry={e} onShowAll={onShowAll} inFlight={inFlight} />
      ))}
    </div>
  );
}

export function EntryView({
  entry,
  onShowAll,
  inFlight = false,
}: {
  entry: Entry;
  onShowAll: (() => void) | null;
  inFlight?: boolean;
}) {
  switch (entry.kind) {
    case "prompt":
      return (
        <div class="prompt" aria-label="Prompt">
          <span class="sigil" aria-hidden="true">
            ›
          </span>
          <span class="text">{entry.text}</span>
        </div>
      );
    case "text":
      return <Markdown source={entry.markdown} subagent={entry.parent !== null} />;
    case "thinking":
      return (
        <details class="thinking" open={openByDefault()}>
          <summary>Thinking</summary>
          <pre>{entry.text}</pre>
        </details>
      );
    case "tool":
      return <ToolCall tool={entry} onShowAll={onShowAll} />;
    case "permission": {
      const word =
        entry.answer === "allow"
          ? "Allowed"
          : entry.answer === "deny"
            ? "Denied"
            : inFlight
              ? "Asking"
              : "Not answered";
      return (
        <div class={`permission ${entry.answer}`}>
          <strong>{word}</strong> {entry.tool}
          {entry.detail ? `(${entry.detail})` : ""}
          {entry.by ? <span class="muted"> · {entry.by}</span> : null}
          {entry.message ? <div class="muted">{entry.message}</div> : null}
        </div>
      );
    }
    case "question":
      return (
        <div class="question">
          {entry.questions.map((q, i) => (
            <div key={i}>
              <strong>Asked:</strong> {q} <span class="answer">→ {entry.answers[i] || "(no answer)"}</span>
            </div>
          ))}
        </div>
      );
    case "rule":
      return (
        <div class={`rule ${entry.decision}`}>
          ⚖ rule <strong>{entry.rule}</strong> {entry.decision} {entry.tool}({entry.detail})
          {entry.message ? `: ${entry.message}` : ""}
        </div>
      );
    case "mark":
      return <div class="mark">{entry.text}</div>;
    case "notice":
      return <div class={`notice ${entry.level}`}>{entry.text}</div>;
    case "raw":
      return (
        <details class="raw">
          <summary>A line nudge does not know ({entry.line.length} characters)</summary>
          <ClippedBlock text={entry.line} onShowAll={onShowAll} />
        </details>
      );
    default:
      return (
        <details class="raw">
          <summary>An entry this page does not know</summary>
          <pre>{JSON.stringify(entry, null, 2)}</pre>
        </details>
      );
  }
}

export function Markdown({ source, subagent }: { source: string; subagent: boolean }) {
  const cls = `markdown${subagent ? " subagent" : ""}`;
  // Megabytes of markdown would hold the page up: past the limit it is rendered in pieces, each as it nears the screen.
  if (source.length > MARKDOWN_MAX)
    return (
      <div class={cls}>
        {markdownPieces(source).map((piece, i) => (
          <MarkdownPiece key={i} source={piece} />
        ))}
      </div>
    );
  return <MarkdownHtml cls={cls} source={source} />;
}

function MarkdownHtml({ cls, source }: { cls: string; source: string }) {
  const ref = useCopyButtons(source);
  return <div class={cls} ref={ref} dangerouslySetInnerHTML={{ __html: renderMarkdown(source) }} />;
}

/** One piece of a long answer: its text at first, its markdown once near the screen. */
function MarkdownPiece({ source }: { source: string }) {
  const [near, setNear] = useState(false);
  const ref = useRef<HTMLPreElement>(null);
  useEffect(() => (near || !ref.current ? undefined : whenNear(ref.current, () => setNear(true))), [near]);
  if (near) return <MarkdownHtml cls="markdown-piece" source={source} />;
  return (
    <pre class="markdown-piece" ref={ref}>
      {source}
    </pre>
  );
}
