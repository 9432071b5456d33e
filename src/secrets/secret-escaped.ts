/**
 * Secrets inside strings still JSON-escaped in a text: a tool input shown as JSON, a streamed
 * tool input that came in one fragment, a `config.json` written by a tool. There a key file's
 * line ends are `\n` escapes and a JSON file's quotes `\"`, so the checks that read lines or
 * quotes (a PuTTY key, a Docker `"auth"`, a key id by its name) see the string decoded; each
 * finding is mapped back onto the escaped text, where its placeholder keeps the JSON valid.
 */
import { rawIndex } from "./json-strings.js";
import { JoinedTexts } from "./joined-texts.js";
import type { SecretSpan } from "./secret-detect.js";

/** Strings shorter than this hold no key file or config worth decoding. */
const MIN_STRING = 24;

export function escapedFindings(text: string, detect: (decoded: string) => SecretSpan[], depth = 2): SecretSpan[] {
  const pieces = [...escapedStrings(text)];
  if (pieces.length === 0) return [];
  const joined = new JoinedTexts(pieces.map((p) => p.decoded));
  const spans = [...detect(joined.text), ...(depth > 1 ? escapedFindings(joined.text, detect, depth - 1) : [])];
  const found: SecretSpan[] = [];
  for (const [i, span] of joined.split(spans)) {
    const { at, raw } = pieces[i]!;
    found.push({ kind: span.kind, start: at + rawIndex(raw, span.start), end: at + rawIndex(raw, span.end) });
  }
  return found;
}

/** Each `"…"` on one line with a backslash escape in it that decodes as a JSON string (one pass by char codes). */
function* escapedStrings(text: string): Generator<{ at: number; raw: string; decoded: string }> {
  let at = text.indexOf('"');
  while (at !== -1) {
    let i = at + 1;
    let escaped = false;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x5c) {
        escaped = true;
        i += 2;
      } else if (c === 0x22 || c === 0x0a) break;
      else i++;
    }
    if (i >= text.length) return;
    if (text.charCodeAt(i) === 0x0a) {
      at = text.indexOf('"', i);
      continue;
    }
    if (escaped && i - at >= MIN_STRING) {
      const raw = text.slice(at, i + 1);
      const decoded = parsed(raw);
      if (decoded !== undefined) yield { at, raw, decoded };
      else {
        // Not a string after all (quotes paired wrongly in prose): its closing quote may open one.
        at = i;
        continue;
      }
    }
    at = text.indexOf('"', i + 1);
  }
}

function parsed(raw: string): string | undefined {
  try {
    return JSON.parse(raw) as string;
  } catch {
    return undefined;
  }
}
