/**
 * A rule's regular expression, matched by RE2's linear-time engine (re2js), never by JavaScript's
 * backtracking one: a rules file may come from a teammate, and a pattern like `^(a+)+$` froze
 * nudge at 100% CPU beyond the reach of Ctrl-C. RE2 takes time proportional to pattern × text,
 * so every match is bounded by the size of what it reads. Its syntax is Perl's without lookaround
 * and backreferences (exactly what makes a match linear); such a pattern is refused at load.
 */
import { RE2JS } from "re2js";
import { errorMessage } from "../base/errors.js";

export interface Pattern {
  readonly source: string;
  /** Found anywhere in the text; `^` and `$` match at every line. */
  search(text: string): boolean;
  /** Matches the whole text, as if written `^(?:…)$` without the multi-line reading. */
  matchesWhole(text: string): boolean;
}

export class PatternError extends Error {}

export function compilePattern(source: string): Pattern {
  let re: RE2JS;
  try {
    // MULTILINE: ^ and $ match at every line, as grep users expect of a multi-line command or file.
    re = RE2JS.compile(source, RE2JS.MULTILINE);
  } catch (error) {
    // re2js quotes the pattern with the (?m) it was compiled with; the user wrote it without.
    throw new PatternError(
      errorMessage(error)
        .replace(/^error parsing regexp: /, "")
        .replace("`(?m)", "`"),
    );
  }
  return {
    source,
    search: (text) => re.test(text),
    matchesWhole: (text) => re.matches(text),
  };
}
