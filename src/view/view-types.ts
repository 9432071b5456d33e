/**
 * What a reader sees of a session: the shapes the web server sends, the static HTML embeds and the
 * page renders. Built from the bundle by the session layer (src/view/*), never by the page: the page
 * only renders these. Every string in them comes from a session (Claude's output, a teammate's
 * import) and is untrusted: the page shows it as text, or as markdown through the sanitizer.
 */
import type { summarize } from "../store/summary.js";

/** One row of the sessions page: what `session list --json` gives, and what only the page needs. */
export type SessionListItem = ReturnType<typeof summarize> & {
  /** Ids of the sessions forked from this one. */
  children: string[];
};

/** A file a turn (or the user's edits) changed, as the diff header says it. */
export interface FileChange {
  path: string;
  /** Set for a rename or copy: the name it had. */
  oldPath: string | null;
  status: "added" | "deleted" | "modified" | "renamed" | "copied" | "mode" | "type";
  binary: boolean;
  symlink: boolean;
  oldMode: string | null;
  newMode: string | null;
  added: number;
  removed: number;
}

/** A diff: the unified text (git's own, `diff --git` headers included) and its files. */
export interface DiffView {
  files: FileChange[];
  /** The unified diff, cut at `truncated` bytes when longer (the whole one is one request away). */
  patch: string;
  truncated: boolean;
}

/** A long text cut for the first view; `full` says how to get all of it. */
export interface ClippedText {
  text: string;
  /** Length in characters of the whole text; more than text.length when it was cut. */
  length: number;
  /**
   * Set when the text came from a line too long to read whole (a 50 MB tool input): `length` is
   * then only what was read, and the whole line is downloaded from the session's stream at `byte`.
   */
  whole?: { byte: number; bytes: number };
}

export type Entry =
  | { kind: "prompt"; text: string }
  | { kind: "text"; markdown: string; parent: string | null }
  | { kind: "thinking"; text: string; parent: string | null }
  | {
      kind: "tool";
      id: string;
      name: string;
      /** The tool's input as claude sent it (JSON), cut when long. */
      input: ClippedText;
      /** A one-line summary: the command, the path, the pattern. */
      detail: string;
      result: { content: ClippedText; isError: boolean } | null;
      /** A subagent's (Task/Agent tool) own entries, nested. */
      children: Entry[];
      parent: string | null;
    }
  | {
      kind: "permission";
      tool: string;
      detail: string;
      answer: "allow" | "deny" | "unanswered";
      by: string | null;
      message: string | null;
    }
  | { kind: "question"; questions: string[]; answers: string[] }
  | { kind: "rule"; rule: string; decision: string; tool: string; detail: string; message: string | null }
  | { kind: "mark"; text: string }
  | { kind: "notice"; level: "info" | "warn" | "error"; text: string }
  /** A line nudge does not know (a newer claude): shown raw, collapsed; never breaks the page. */
  | { kind: "raw"; line: ClippedText };

export interface TurnSummaryView {
  n: number;
  prompt: string | null;
  status: string;
  startedAt: string;
  endedAt: string;
  costUsd: number | null;
  durationMs: number | null;
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number } | null;
  files: number;
  added: number;
  removed: number;
  /** The user's own edits before this turn's prompt, when there were any. */
  edits: { files: number; added: number; removed: number } | null;
  check: { command: string; exitCode: number | null; tail: string; durationMs: number } | null;
  compaction: { preTokens: number | null; postTokens: number | null } | null;
  /** Other sessions that had a turn running in the same work tree during this one: its changes may include theirs. */
  sharedWith: string[];
  /** A `claude loop` turn: which iteration (or its verifier), the model, the promise, the verdict. */
  loop: {
    role: "iteration" | "verifier";
    iteration: number;
    fresh: boolean;
    model: string | null;
    promise: string | null;
    verdict: { pass: boolean; reason: string | null } | null;
  } | null;
}

/** The session page's first load: everything but the turns' entries (fetched per turn). */
export interface SessionView {
  session: SessionListItem;
  repo: { root: string; branch: string | null };
  turns: TurnSummaryView[];
  /** A turn in flight (live, or left by a crash): its number and prompt. */
  pending: { n: number; prompt: string } | null;
}

/** One turn's whole view. */
export interface TurnView {
  summary: TurnSummaryView;
  entries: Entry[];
  /** What the user changed before this turn's prompt, as a diff of its own. */
  edits: DiffView | null;
  diff: DiffView;
}
