/**
 * The string values of one JSON text, with where each sits in the raw text, so a value can be
 * read decoded and, when it must change, re-encoded in place while every other byte of the line
 * stays as claude wrote it (STYLE: keep claude's lines as bytes).
 *
 * Only for text already known to be valid JSON (JSON.parse succeeded): then every `"` outside a
 * string opens one, and a `\` inside one always escapes the next character.
 */
export interface StringToken {
  /** Index of the opening quote in the raw text. */
  start: number;
  /** Index just past the closing quote. */
  end: number;
  /** A value, not an object key. */
  isValue: boolean;
}

export function stringTokens(json: string): StringToken[] {
  const tokens: StringToken[] = [];
  let at = json.indexOf('"');
  // Each search is made again only once passed: a string with an escape every line (a file's text
  // in a tool input) made the next quote be searched for after every escape, megabytes each time.
  let backslash = json.indexOf("\\");
  while (at !== -1) {
    let close = at + 1;
    let quote = json.indexOf('"', close);
    if (backslash !== -1 && backslash < close) backslash = json.indexOf("\\", close);
    for (;;) {
      if (backslash !== -1 && backslash < quote) {
        close = backslash + 2;
        if (quote < close) quote = json.indexOf('"', close);
        backslash = json.indexOf("\\", close);
      } else {
        close = quote;
        break;
      }
    }
    let next = close + 1;
    while (
      next < json.length &&
      (json[next] === " " || json[next] === "\t" || json[next] === "\n" || json[next] === "\r")
    )
      next++;
    tokens.push({ start: at, end: close + 1, isValue: json[next] !== ":" });
    at = json.indexOf('"', close + 1);
  }
  return tokens;
}

/** The decoded value of a string token (its raw text, quotes included). */
export function decodeToken(raw: string): string {
  return raw.includes("\\") ? (JSON.parse(raw) as string) : raw.slice(1, -1);
}

/** Where the `index`-th character of the decoded value sits inside the raw token (quotes included). */
export function rawIndex(raw: string, index: number): number {
  let at = 1;
  for (let decoded = 0; decoded < index && at < raw.length - 1; decoded++) {
    if (raw[at] !== "\\") at += 1;
    else at += raw[at + 1] === "u" ? 6 : 2;
  }
  return at;
}

/** Whether a line is one JSON object or array (what claude writes); anything else is left as text. */
export function isJsonLine(text: string): boolean {
  const first = text.trimStart()[0];
  if (first !== "{" && first !== "[") return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
