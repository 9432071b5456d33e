/**
 * Diff lines as the terminal draws them with colour: the code highlighted by the file's language,
 * on a dark green (added) or dark red (removed) background, so both what changed and what it is
 * read at a glance. Only for files of a language nudge highlights; others keep git's colours.
 */
import type { DiffLineHighlighter } from "../live/edit-diff.js";
import { highlightCodeLine } from "./markdown/highlight-ansi.js";

const ADDED = "\u001b[48;5;22m";
const REMOVED = "\u001b[48;5;52m";
const NO_BACKGROUND = "\u001b[49m";

export const highlightDiffLine: DiffLineHighlighter = ({ kind, code, file }) => {
  const coloured = highlightCodeLine(code, file);
  if (coloured === null) return null;
  if (kind === "+") return `${ADDED}\u001b[32m+\u001b[39m${coloured}${NO_BACKGROUND}`;
  if (kind === "-") return `${REMOVED}\u001b[31m-\u001b[39m${coloured}${NO_BACKGROUND}`;
  return ` ${coloured}`;
};
