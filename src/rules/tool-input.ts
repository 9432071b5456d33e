/**
 * The parts of a tool call that rules look at. Tool inputs come from the model: any field may be
 * missing or of another type, and reading them must never throw (an error answer to a hook makes
 * claude run the tool as if no rule existed).
 */
import fs from "node:fs";
import path from "node:path";
import { visible } from "../base/inert-text.js";

export interface ToolCall {
  toolName: string;
  input: Record<string, unknown>;
  /** The directory a relative file path is resolved against: the hook's `cwd`. */
  cwd: string;
  /** Path globs are matched relative to this. */
  repoRoot: string;
}

/** Bash's command, or null for other tools. */
export function commandOf(call: ToolCall): string | null {
  return call.toolName === "Bash" && typeof call.input.command === "string" ? call.input.command : null;
}

/** The file a file tool acts on, as written in the input (NotebookEdit calls it notebook_path). */
function rawFilePath(call: ToolCall): string | null {
  const value = call.toolName === "NotebookEdit" ? call.input.notebook_path : call.input.file_path;
  return typeof value === "string" && value !== "" ? value : null;
}

/** A file tool's file, as path globs see it. */
export interface FilePaths {
  /** Relative to the repository root with `/` separators; null for a file outside the repository. */
  relative: string | null;
  /** Absolute, with `/` separators: what `//…` and `~/…` patterns match. */
  absolute: string;
}

/** The file a file tool acts on; a relative path in the input is taken from the call's cwd. */
export function filePaths(call: ToolCall): FilePaths | null {
  const raw = rawFilePath(call);
  if (raw === null) return null;
  return pathsOf(path.resolve(call.cwd, raw), call.repoRoot);
}

/**
 * The same file with every symlink on its way resolved (`envlink` → `.env`, `seclink/a` →
 * `secrets/a`), or null when that is where the path already points. A rule on `.env` must see a
 * Read of a link to it; the tool follows the link.
 */
export function realFilePaths(call: ToolCall): FilePaths | null {
  const raw = rawFilePath(call);
  if (raw === null) return null;
  const absolute = path.resolve(call.cwd, raw);
  const real = resolveExisting(absolute);
  const root = resolveExisting(call.repoRoot);
  return real === absolute && root === call.repoRoot ? null : pathsOf(real, root);
}

function pathsOf(absolute: string, repoRoot: string): FilePaths {
  const relative = path.relative(repoRoot, absolute);
  const outside =
    relative === "" || relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
  const slashes = (p: string) => p.split(path.sep).join("/");
  return { relative: outside ? null : slashes(relative), absolute: slashes(absolute) };
}

/** Longer than this no tool takes a path (claude's own limit): such a path is matched as written. */
const MAX_PATH = 4096;

/**
 * The real path of `file`: every link on the way followed, a link to what does not exist yet
 * too (a Write through `src/envl -> ../.env` makes .env), and the part not yet written kept.
 */
function resolveExisting(file: string): string {
  if (file.length > MAX_PATH) return file;
  let rest = "";
  let links = 0;
  for (let at = file; ;) {
    try {
      return path.join(fs.realpathSync.native(at), rest);
    } catch {
      const target = readLink(at);
      if (target !== null && links++ < 40) {
        at = path.resolve(path.dirname(at), target);
        continue;
      }
      const parent = path.dirname(at);
      if (parent === at) return file;
      rest = path.join(path.basename(at), rest);
      at = parent;
    }
  }
}

function readLink(file: string): string | null {
  try {
    return fs.readlinkSync(file);
  } catch {
    return null;
  }
}

/** The new text a write carries: one piece for Write, Edit and NotebookEdit, one per edit for MultiEdit. */
export function newTexts(call: ToolCall): string[] {
  const { input } = call;
  const text = (value: unknown) => (typeof value === "string" ? [value] : []);
  switch (call.toolName) {
    case "Write":
      return text(input.content);
    case "Edit":
      return text(input.new_string);
    case "NotebookEdit":
      return text(input.new_source);
    case "MultiEdit":
      return Array.isArray(input.edits)
        ? input.edits.flatMap((e: unknown) =>
            e && typeof e === "object" ? text((e as Record<string, unknown>).new_string) : [],
          )
        : [];
    default:
      return [];
  }
}

/**
 * One line saying what the call touches, for records and messages: the command, the path, or the
 * input. Every control character is shown as an escape (`\n`, `\x1b`) and every invisible one as
 * `\u202e`: `touch x\nnode --test` shown as `touch x node --test` hid the command that ran.
 */
export function callDetail(call: ToolCall, max = 200): string {
  const file = filePaths(call);
  const detail = commandOf(call) ?? (file && (file.relative ?? file.absolute)) ?? safeJson(call.input);
  const shown = showControls(detail.trim().replace(/ {2,}/g, " "));
  return shown.length > max ? `${shown.slice(0, max - 1)}…` : shown;
}

/**
 * Text on one line with nothing hidden: the terminal's controls as `visible` shows them (`\x1b`,
 * `\u202e`), line ends and tabs as `\n` and `\t`, and any other invisible character (a zero-width
 * space) as its code point.
 */
export function showControls(text: string): string {
  return visible(text)
    .replace(/\n/g, "\\n")
    .replace(/\t/g, "\\t")
    .replace(/\p{Cf}/gu, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, "0")}`);
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return ""; // a cycle cannot come from parsed JSON, but this must not throw
  }
}
