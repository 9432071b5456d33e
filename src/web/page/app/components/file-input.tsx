/**
 * A Write's input shown as the file it writes (highlighted by the file's name), and an Edit's as
 * the lines it takes out and puts in, instead of JSON with `\n` escapes. Anything else, or an input
 * that cannot be read as such, falls back to the JSON. Its text is shown inert, as every other string.
 */
import type { ClippedText } from "../../../../view/view-types.js";
import { highlight, languageOfPath } from "../highlight.js";
import { visible } from "../../../../base/inert-text.js";

type FileInput =
  | { kind: "write"; path: string; content: string }
  | { kind: "edit"; path: string; old: string; new: string; all: boolean };

/** The fields of a Write or Edit input, also from an input cut short (its first part): null when it is neither. */
export function readFileInput(tool: string, input: ClippedText): FileInput | null {
  if (tool !== "Write" && tool !== "Edit") return null;
  // Decoded, the JSON's escapes are the controls again (ESC, bidi overrides): shown as escapes, never obeyed.
  const field = (name: string) => {
    const value = stringField(input.text, name);
    return value === null ? null : visible(value);
  };
  const path = field("file_path");
  if (path === null) return null;
  if (tool === "Write") {
    const content = field("content");
    return content === null ? null : { kind: "write", path, content };
  }
  const [old, now] = [field("old_string"), field("new_string")];
  return old === null || now === null
    ? null
    : { kind: "edit", path, old, new: now, all: /"replace_all"\s*:\s*true/.test(input.text) };
}

/** A JSON string field's value; from a cut input, as much of it as there is. */
function stringField(json: string, name: string): string | null {
  try {
    const whole = JSON.parse(json) as Record<string, unknown>;
    const value = whole?.[name];
    return typeof value === "string" ? value : null;
  } catch {
    const start = new RegExp(`"${name}"\\s*:\\s*"`).exec(json);
    if (!start) return null;
    const body = /^(?:[^"\\]|\\.)*/.exec(json.slice(start.index + start[0].length))![0];
    try {
      return JSON.parse(`"${body.replace(/\\u[0-9a-fA-F]{0,3}$|\\$/, "")}"`) as string;
    } catch {
      return null;
    }
  }
}

export function FileInputView({ input }: { input: FileInput }) {
  if (input.kind === "write") {
    // Highlighting is the slow part: a file past this is shown plain.
    const html = input.content.length > 100_000 ? null : highlight(input.content, languageOfPath(input.path));
    return (
      <figure class="file-input" aria-label={`The file ${input.path}`}>
        <figcaption class="muted small">{input.path}</figcaption>
        {html === null ? <pre>{input.content}</pre> : <pre class="hljs" dangerouslySetInnerHTML={{ __html: html }} />}
      </figure>
    );
  }
  const lines = (text: string, sign: string) => (text === "" ? [] : text.split("\n").map((l) => `${sign}${l}`));
  return (
    <figure class="file-input" aria-label={`The edit of ${input.path}`}>
      <figcaption class="muted small">
        {input.path}
        {input.all ? " · every occurrence replaced" : ""}
      </figcaption>
      <pre>
        {lines(input.old, "-").map((l, i) => (
          <span key={`d${i}`} class="del">
            {l}
            {"\n"}
          </span>
        ))}
        {lines(input.new, "+").map((l, i) => (
          <span key={`a${i}`} class="add">
            {l}
            {"\n"}
          </span>
        ))}
      </pre>
    </figure>
  );
}
