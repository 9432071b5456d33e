/**
 * A hit as shown: a one-line window of its text around the first match, the matches inside it,
 * every piece made inert (a session's control characters shown as escapes, never obeyed). For
 * anything that may leave the machine (`--json`, the web route), the whole text has its secrets
 * masked as an export masks them before the window is cut: a secret is never half-shown.
 */
import { inertValue, visibleJsonText } from "../base/inert-text.js";
import type { SecretSpan } from "../secrets/secret-detect.js";
import { markdownMarkers } from "./markdown-plain.js";
import type { SearchHit } from "./query.js";

export interface Snippet {
  text: string;
  /** [start, end) in `text`. */
  matches: Array<[number, number]>;
}

const BEFORE = 60;
const WIDTH = 200;

export function snippetOf(
  text: string,
  matches: Array<[number, number]>,
  /**
   * plain: markdown's markers left out (for a terminal, where they would show as they are typed);
   * json: the text is JSON (a tool's input), its escapes of controls shown in `visible`'s style.
   */
  o: { plain?: boolean; json?: boolean } = {},
): Snippet {
  const first = matches[0]?.[0] ?? 0;
  // In JSON, a window edge inside an escape (`\u202e`) moves to its start: never `u202e` alone.
  const edge = (at: number) => (o.json ? escapeStart(text, at) : at);
  const from = edge(Math.max(0, first - BEFORE));
  const to = edge(Math.min(text.length, from + WIDTH));
  const inside = matches
    .filter(([s, e]) => s < to && e > from)
    .map(([s, e]): [number, number] => [Math.max(s, from), Math.min(e, to)]);
  // A little around the window, so that a pair of markers across its edge is seen as one.
  const around = Math.max(0, from - WIDTH);
  const drop = o.plain ? markdownMarkers(text.slice(around, to + WIDTH)) : null;
  const kept = (a: number, b: number): string => {
    if (!drop) return text.slice(a, b);
    let out = "";
    for (let i = a; i < b; i++) if (!drop[i - around]) out += text[i];
    return out;
  };
  const pieces: Array<{ text: string; match: boolean }> = [];
  let at = from;
  for (const [s, e] of inside) {
    if (s > at) pieces.push({ text: kept(at, s), match: false });
    pieces.push({ text: kept(s, e), match: true });
    at = e;
  }
  if (at < to) pieces.push({ text: kept(at, to), match: false });
  if (o.plain && pieces.length > 0) {
    // A fence or a heading's line left out leaves only its line break: no blank at the ends.
    if (!pieces[0]!.match) pieces[0]!.text = pieces[0]!.text.trimStart();
    if (!pieces.at(-1)!.match) pieces.at(-1)!.text = pieces.at(-1)!.text.trimEnd();
  }
  let out = from > 0 ? "…" : "";
  const shownMatches: Array<[number, number]> = [];
  for (const p of pieces) {
    const piece = p.text.replace(/\s+/g, " ");
    const shown = o.json ? visibleJsonText(piece) : inertValue(piece);
    if (p.match) shownMatches.push([out.length, out.length + shown.length]);
    out += shown;
  }
  if (to < text.length) out += "…";
  return { text: out, matches: shownMatches };
}

/** Where the JSON escape `at` falls inside starts (`at` itself when it is in none). */
function escapeStart(text: string, at: number): number {
  for (let i = at - 1; i >= 0 && i >= at - 5; i--) {
    if (text[i] !== "\\") continue;
    let run = 0;
    for (let j = i; j >= 0 && text[j] === "\\"; j--) run++;
    // An even run is escaped backslashes: no escape starts there.
    if (run % 2 === 0) return at;
    return i + (text[i + 1] === "u" ? 6 : 2) > at ? i : at;
  }
  return at;
}

/** The hit's text with its secrets masked, and its matches moved to where they now are. */
export async function maskHit(hit: SearchHit): Promise<SearchHit> {
  const { detectSecrets, placeholder } = await secretModules();
  const spans = (await detectSecrets(hit.text)).sort((a, b) => a.start - b.start);
  const prompt = hit.prompt === null ? null : await maskString(hit.prompt);
  if (spans.length === 0) return { ...hit, prompt };
  let text = "";
  let at = 0;
  const moves: Array<{ start: number; end: number; newStart: number; newEnd: number }> = [];
  for (const s of spans) {
    if (s.end <= at) continue;
    const start = Math.max(at, s.start);
    text += hit.text.slice(at, start);
    const newStart = text.length;
    text += placeholder(s.kind);
    moves.push({ start, end: s.end, newStart, newEnd: text.length });
    at = s.end;
  }
  text += hit.text.slice(at);
  const move = (p: number, side: "start" | "end"): number => {
    let shift = 0;
    for (const m of moves) {
      if (p >= m.end) shift = m.newEnd - m.end;
      else if (p > m.start) return side === "start" ? m.newStart : m.newEnd;
      else break;
    }
    return p + shift;
  };
  const matches = hit.matches.map(([s, e]): [number, number] => [move(s, "start"), move(e, "end")]);
  return { ...hit, text, matches, prompt };
}

async function maskString(text: string): Promise<string> {
  const { detectSecrets, maskText } = await secretModules();
  return maskText(text, await detectSecrets(text));
}

/** secretlint takes a while to load: only output that masks pays for it. */
async function secretModules(): Promise<{
  detectSecrets: (text: string) => Promise<SecretSpan[]>;
  placeholder: (kind: string) => string;
  maskText: (text: string, spans: SecretSpan[]) => string;
}> {
  const [{ detectSecrets }, { placeholder, maskText }] = await Promise.all([
    import("../secrets/secret-detect.js"),
    import("../secrets/secrets.js"),
  ]);
  return { detectSecrets, placeholder, maskText };
}
