/**
 * The tags a loop reads in claude's last message of an iteration: `<promise>TEXT</promise>`,
 * `<next-model>NAME</next-model>`, and a verifier's `<verify-pass/>` or
 * `<verify-fail>why</verify-fail>`. Only claude's own prose counts: a tag inside a fenced code
 * block, an inline code span or a quoted line ("> …", how tool output is usually quoted) is
 * something claude is showing, not saying; loops that trusted those stopped on a file's contents.
 */

/** The message with code blocks, code spans and quoted lines blanked out. */
export function prose(text: string): string {
  const out: string[] = [];
  let fence: string | null = null;
  let indented = false;
  for (const line of text.split("\n")) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1] ?? null;
    if (fence !== null) {
      // A fence closes with the same character, at least as long, and nothing but spaces after it.
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
      out.push("");
      continue;
    }
    if (marker) {
      fence = marker;
      out.push("");
      continue;
    }
    // An indented code block: four spaces (or a tab) after a blank line or another such line (QA).
    if (/^( {4}|\t)/.test(line) && (out.length === 0 || out.at(-1) === "" || indented)) {
      indented = true;
      out.push("");
      continue;
    }
    indented = false;
    if (/^ {0,3}>/.test(line)) {
      out.push("");
      continue;
    }
    out.push(line.replace(/(`+)[\s\S]*?\1/g, ""));
  }
  return out.join("\n");
}

/** The inner texts of every `<tag>…</tag>` in claude's prose, trimmed, in order. */
function tagged(text: string, tag: string): string[] {
  const found: string[] = [];
  for (const m of prose(text).matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "g"))) found.push(m[1]!.trim());
  return found;
}

export interface IterationSigils {
  promises: string[];
  /** The last `<next-model>` named, if any. */
  nextModel: string | null;
}

export function readSigils(text: string): IterationSigils {
  return { promises: tagged(text, "promise"), nextModel: tagged(text, "next-model").at(-1) ?? null };
}

export interface Verdict {
  pass: boolean;
  /** A fail's reason (null: none given, or a pass). */
  reason: string | null;
}

/** A verifier's answer; null when it gave none (which counts as a fail). A fail anywhere wins over a pass. */
export function readVerdict(text: string): Verdict | null {
  const fails = tagged(text, "verify-fail");
  if (fails.length > 0) return { pass: false, reason: fails.join("\n").slice(0, 4000) || null };
  return /<verify-pass\s*\/>/.test(prose(text)) ? { pass: true, reason: null } : null;
}

/** The message without its tags, on one line and short: a reason to show ("FAILURE: the API it needs is gone"). */
export function reasonFrom(text: string): string {
  const flat = prose(text)
    .replace(/<(promise|next-model)>[\s\S]*?<\/\1>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return flat.length > 300 ? `${flat.slice(0, 299)}…` : flat;
}
