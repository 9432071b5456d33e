/**
 * What each of claude's requests looks like on screen, and how a typed answer is read: pure
 * functions, so the wording and the parsing are tested without a terminal. TerminalAsker shows
 * these lines and asks.
 */
import { suggestionsToSave, type CanUseToolRequest, type PermissionUpdate } from "../claude/control-protocol.js";
import type { PermissionAnswer, PermissionContext, Question } from "../live/ask.js";
import { describeUpdate } from "./decisions.js";
import { editDiff, type DiffOptions } from "../live/edit-diff.js";
import { highlightDiffLine } from "./diff-highlight.js";
import { MarkdownStream } from "./markdown/markdown-stream.js";
import { visible } from "../base/inert-text.js";
import { firstLines } from "../base/format.js";
import type { Style } from "./style.js";
import { relativePath, toolDetail } from "../claude/tool-detail.js";

export interface ViewOptions {
  style: Style;
  readFile?: DiffOptions["readFile"];
  /** Diff lines at most (default 40): the terminal asker gives what fits the screen's height. */
  maxDiffLines?: number;
}

/** The key that shows a cut diff whole, in the pager (^O: nothing else at a question uses it). */
const WHOLE_DIFF_KEY = "Ctrl-O";

/**
 * A permission question's lines; `whole`, when the diff was cut: the question with the diff uncut,
 * for the pager. In both, the lines from `diffAt` on are the diff's, shown as they are (never
 * wrapped at words: a wrapped row would lose its `+`/`-` gutter).
 */
export interface PermissionView {
  lines: string[];
  whole: string[] | null;
  diffAt: number;
}

/** The tool and its useful detail: the command and its description, or the file and its diff. */
export function permissionLines(request: CanUseToolRequest, context: PermissionContext, o: ViewOptions): string[] {
  return permissionView(request, context, o).lines;
}

export function permissionView(request: CanUseToolRequest, context: PermissionContext, o: ViewOptions): PermissionView {
  const { style } = o;
  const input = request.input;
  const lines: string[] = [];
  const command = typeof input.command === "string" ? input.command : undefined;
  const detail = command === undefined ? toolDetail({ input }, context.cwd) : "";
  lines.push(style.bold(style.yellow(`? ${visible(request.tool_name)}${detail ? `(${detail})` : ""}`)));
  if (command !== undefined) for (const line of firstLines(command, 20)) lines.push(`  ${line}`);
  const description = typeof input.description === "string" ? input.description : request.description;
  if (description && description !== command && description !== detail)
    lines.push(style.dim(`  ${visible(description)}`));
  // Made whole, then cut here: the pager shows what the cut left out.
  const diff = editDiff(request.tool_name, input, {
    cwd: context.cwd,
    style,
    readFile: o.readFile,
    maxLines: Infinity,
    highlight: style.enabled ? highlightDiffLine : undefined,
  });
  // The path that made claude ask (measured: a Bash redirect's target, inside the work tree too), not necessarily outside it.
  if (request.blocked_path && !diff)
    lines.push(style.dim(`  needs access to ${visible(relativePath(request.blocked_path, context.cwd))}`));
  const diffAt = lines.length;
  if (!diff) return { lines, whole: null, diffAt };
  const max = Math.max(1, o.maxDiffLines ?? 40);
  const indented = diff.map((line) => `  ${line}`);
  if (diff.length <= max) return { lines: [...lines, ...indented], whole: null, diffAt };
  const cut = style.dim(`  … ${diff.length - max} more lines (${WHOLE_DIFF_KEY} shows the whole diff)`);
  return { lines: [...lines, ...indented.slice(0, max), cut], whole: [...lines, ...indented], diffAt };
}

/** The rule "don't ask again" would save, from the request's suggestions; null when it has none. */
export function savedRule(suggestions: PermissionUpdate[] | undefined): string | null {
  const saved = suggestionsToSave(suggestions);
  return saved.length > 0 ? visible(saved.map(describeUpdate).join(", ")) : null;
}

/** `cut`: the diff above was cut, and the question names the key that shows it whole. */
export function permissionQuestion(request: CanUseToolRequest, style: Style, cut = false): string {
  const save = savedRule(request.permission_suggestions);
  const options = ["[y]es", "[n]o", "[a]lways for this session", ...(save ? [`[d]on't ask again (save ${save})`] : [])];
  return `${style.bold("Allow?")} ${options.join(" / ")}${cut ? style.dim(` · ${WHOLE_DIFF_KEY}: whole diff`) : ""} `;
}

/** y/yes, n/no, a/always, d (when a rule can be saved); undefined for anything else. */
export function parsePermission(text: string, canSave: boolean): PermissionAnswer["kind"] | undefined {
  const t = text.trim().toLowerCase();
  if (t === "y" || t === "yes") return "yes";
  if (t === "n" || t === "no") return "no";
  if (t === "a" || t === "always") return "always";
  if (canSave && (t === "d" || t === "don't" || t === "dont" || t === "save")) return "save";
  return undefined;
}

/** A question with its header and numbered options (descriptions dimmed), and the free-text "other". */
export function questionLines(q: Question, style: Style): string[] {
  const head = q.header
    ? `${style.bold(style.cyan(`? ${visible(q.header)}`))} ${visible(q.question)}`
    : style.bold(style.cyan(`? ${visible(q.question)}`));
  const lines = [head];
  q.options.forEach((option, i) => {
    lines.push(
      `  ${i + 1}. ${visible(option.label)}${option.description ? style.dim(` — ${visible(option.description)}`) : ""}`,
    );
  });
  lines.push(style.dim(`  ${q.options.length + 1}. Other (type your own answer)`));
  return lines;
}

export function questionPrompt(q: Question): string {
  const n = q.options.length + 1;
  return q.multiSelect
    ? `Choose one or more (e.g. 1,3) of 1-${n}, or type your answer: `
    : `Choose 1-${n}, or type your answer: `;
}

/** What an answer to a question means. */
export type ChoiceParse = { labels: string[]; other: boolean } | { text: string } | undefined;

/**
 * Numbers pick options ("2"; "1,3" or "1 3" where several may be chosen), the last number being
 * "other"; any other text is the user's own answer. Undefined: empty, or numbers that do not fit.
 */
export function parseChoice(text: string, q: Question): ChoiceParse {
  const t = text.trim();
  if (!t) return undefined;
  if (!/^\d+(\s*[,\s]\s*\d+)*$/.test(t)) return { text: t };
  // Labels in the options' order, whatever order they were typed in.
  const numbers = [...new Set(t.split(/[,\s]+/).map(Number))].sort((a, b) => a - b);
  const other = q.options.length + 1;
  if (numbers.some((n) => n < 1 || n > other)) return undefined;
  if (!q.multiSelect && numbers.length !== 1) return undefined;
  return {
    labels: numbers.filter((n) => n !== other).map((n) => q.options[n - 1]!.label),
    other: numbers.includes(other),
  };
}

/** The plan, as claude wrote it (markdown shown as plain text), under a heading. */
/** Claude's plan under a bar, rendered as markdown when there is colour (as claude's words are), fitted to `columns`. */
export function planLines(plan: string, style: Style, columns = 80): string[] {
  const text = plan.replace(/\s+$/, "");
  let body: string[];
  if (!plan.trim()) body = ["(claude sent no plan text)"];
  else if (!style.enabled) body = visible(text).split("\n");
  else {
    let out = "";
    const markdown = new MarkdownStream({ write: (t) => void (out += t), columns: () => Math.max(20, columns - 3) });
    markdown.push(text);
    markdown.end();
    body = out.replace(/\n+$/, "").split("\n");
  }
  return [style.bold(style.cyan("? Claude's plan")), ...body.map((line) => `${style.dim("│")} ${line}`)];
}

export function planQuestion(style: Style): string {
  return `${style.bold("Approve the plan?")} [y]es / [a] yes + accept edits / [n]o, keep planning `;
}

export function parseYesNo(text: string): boolean | undefined {
  const t = text.trim().toLowerCase();
  if (t === "y" || t === "yes") return true;
  if (t === "n" || t === "no") return false;
  return undefined;
}
