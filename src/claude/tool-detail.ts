/** The one detail that says what a tool call does, for the tool lines, the status line and the decision lines. */
import path from "node:path";
import type { ToolUse } from "./stream-events.js";
import { visible } from "../base/inert-text.js";
import { oneLine } from "../base/format.js";

/** A path, a command, a pattern: relative to `cwd` when it is inside it. */
export function toolDetail(block: Pick<ToolUse, "input">, cwd: string): string {
  const input = block.input;
  const str = (key: string) => (typeof input[key] === "string" ? (input[key] as string) : undefined);
  const rel = (p: string) => relativePath(p, cwd);
  const filePath = str("file_path") ?? str("notebook_path");
  // Paths and URLs are claude's words too: their control characters are shown, not obeyed.
  if (filePath) return visible(rel(filePath));
  if (str("command")) return oneLine(str("command")!, 100);
  if (str("pattern")) return oneLine(`${str("pattern")}${str("path") ? ` in ${rel(str("path")!)}` : ""}`, 100);
  if (str("url")) return visible(str("url")!);
  if (str("query")) return oneLine(str("query")!, 100);
  if (str("description")) return oneLine(str("description")!, 100);
  // AskUserQuestion: the (first) question.
  const questions = input.questions;
  if (Array.isArray(questions) && typeof questions[0]?.question === "string") {
    return oneLine(
      questions.length > 1 ? `${questions[0].question} (+${questions.length - 1})` : questions[0].question,
      100,
    );
  }
  const first = Object.values(input).find((v) => typeof v === "string") as string | undefined;
  return first ? oneLine(first, 80) : "";
}

/** `p` relative to `cwd` when it lies inside it; as it is otherwise. */
export function relativePath(p: string, cwd: string): string {
  return path.isAbsolute(p) && p.startsWith(cwd + path.sep) ? path.relative(cwd, p) : p;
}
