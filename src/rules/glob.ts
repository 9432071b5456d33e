/**
 * A path glob as an RE2 pattern, so a glob can no more hang nudge than a regex can: picomatch
 * compiles to a backtracking JavaScript RegExp, and `**\/*a*a*a*a*a*a*a*a*b` against a name of
 * 60 `a`s never returned. The syntax is the common core of picomatch and .gitignore: `*` (any
 * run within one folder name), `**` as a whole segment (any number of folders), `?`, `[abc]`,
 * `[!abc]`/`[^abc]`, `[a-z]`, `{a,b}` (nestable) and `\` to escape. Dotfiles match like any
 * other name. The paths matched are normalized (no `.` or `..` segments, no trailing `/`).
 */
import { RE2JS } from "re2js";

export class GlobError extends Error {}

/** Whether a normalized `/`-separated path matches the glob as a whole. */
export function compileGlob(glob: string): (path: string) => boolean {
  const source = globToRe2(glob);
  let re: RE2JS;
  try {
    re = RE2JS.compile(source);
  } catch (error) {
    throw new GlobError(String((error as Error).message).replace(/^error parsing regexp: /, "")); // `[z-a]`, say
  }
  return (path) => re.matches(path);
}

function globToRe2(glob: string): string {
  const { source, end } = translate(glob, 0, false);
  if (end !== glob.length) throw new GlobError(`an unexpected "${glob[end]}" at ${end + 1}`);
  return source;
}

/**
 * Translates from `start` until the end, or (inside braces) until the `,` or `}` that ends one
 * alternative; returns the RE2 source and the index it stopped at.
 */
function translate(glob: string, start: number, inBraces: boolean): { source: string; end: number } {
  let out = "";
  let i = start;
  while (i < glob.length) {
    const c = glob[i]!;
    if (inBraces && (c === "," || c === "}")) return { source: out, end: i };
    if (c === "\\") {
      if (i + 1 >= glob.length) throw new GlobError("a trailing \\ escapes nothing");
      out += RE2JS.quote(glob[i + 1]!);
      i += 2;
    } else if (c === "*") {
      const run = /^\*+/.exec(glob.slice(i))![0].length;
      const before = i === 0 || glob[i - 1] === "/";
      const after = glob[i + run];
      if (run >= 2 && before && after === "/") {
        out += "(?:.*/)?"; // `**/`: no folder or any number of them
        i += run + 1;
      } else if (run >= 2 && before && after === undefined) {
        // `a/**` also matches `a` itself, as picomatch and .gitignore do; a lone `**` matches anything.
        out = out.endsWith("/") ? `${out.slice(0, -1)}(?:/.*)?` : `${out}.*`;
        i += run;
      } else {
        out += "[^/]*";
        i += run;
      }
    } else if (c === "?") {
      out += "[^/]";
      i++;
    } else if (c === "[") {
      const { source, end } = bracket(glob, i);
      out += source;
      i = end;
    } else if (c === "{") {
      const { source, end } = braces(glob, i);
      out += source;
      i = end;
    } else if (c === "}" || c === "]") {
      throw new GlobError(`an unmatched "${c}" at ${i + 1}`);
    } else {
      out += RE2JS.quote(c);
      i++;
    }
  }
  if (inBraces) throw new GlobError(`an unclosed "{"`);
  return { source: out, end: i };
}

/** `{a,b,c}` → `(?:a|b|c)`; without a comma, `{a}` is literal text, as in picomatch and bash. */
function braces(glob: string, open: number): { source: string; end: number } {
  const alternatives: string[] = [];
  let i = open + 1;
  for (;;) {
    const { source, end } = translate(glob, i, true);
    alternatives.push(source);
    if (glob[end] === "}") {
      i = end + 1;
      break;
    }
    i = end + 1; // past the comma
  }
  if (alternatives.length === 1) return { source: `\\{${alternatives[0]}\\}`, end: i };
  return { source: `(?:${alternatives.join("|")})`, end: i };
}

/** `[abc]`, `[a-z]`, `[!abc]` or `[^abc]`: one character of a folder name. */
function bracket(glob: string, open: number): { source: string; end: number } {
  let i = open + 1;
  let negated = false;
  if (glob[i] === "!" || glob[i] === "^") {
    negated = true;
    i++;
  }
  let body = "";
  let first = true;
  while (i < glob.length && (glob[i] !== "]" || first)) {
    const c = glob[i]!;
    if (c === "\\" && i + 1 < glob.length) {
      body += `\\${glob[i + 1]}`;
      i += 2;
    } else {
      // A "-" between two characters is a range; anything else RE2 could read specially is escaped.
      body += c === "-" && !first && glob[i + 1] !== "]" ? "-" : /[!-/:-@[-`{-~]/.test(c) ? `\\${c}` : c;
      i++;
    }
    first = false;
  }
  if (i >= glob.length) throw new GlobError(`an unclosed "["`);
  return { source: negated ? `[^/${body}]` : `[${body}]`, end: i + 1 };
}
