/** `session show` and `session replay` of one of claude's own sessions: its conversation, through the same view layer and renderer as a recorded one's. */
import { formatCost, formatDuration, oneLine, thousands } from "../base/format.js";
import { inertValue, visible, visibleLine } from "../base/inert-text.js";
import type { ClaudeSession } from "../live/claude-own-sessions.js";
import { EventRenderer, stderrNotice } from "../terminal/event-renderer.js";
import { printJson, printTable, writeOut } from "../terminal/output.js";
import { play, sleep, turnHeader } from "../terminal/replay-player.js";
import { colorEnabled, makeStyle } from "../terminal/style.js";
import { claudeTurnViews, readClaudeTranscript, type ClaudeTranscript } from "../view/claude-session-view.js";
import type { Entry } from "../view/view-types.js";
import { UserError } from "../base/errors.js";
import { parseTurnArg } from "./parse-options.js";

const NO_CODE =
  "no code snapshots: nudge did not record this session, so it has no diffs and cannot be rewound or forked";

export async function showClaudeSession(session: ClaudeSession, json: boolean): Promise<void> {
  const transcript = await readClaudeTranscript(session);
  const root = session.cwd ?? process.cwd();
  if (json) {
    const turns = claudeTurnViews(transcript, session, { full: true, repoRoot: root });
    return printJson({ ...session, codeSnapshots: false, cutAt: transcript.cutAt, turns });
  }
  const turns = claudeTurnViews(transcript, session, { full: false, repoRoot: root });
  // Header lines: each value on one line too (a cwd or branch with a line break in it).
  const s = inertValue(session);
  const one = (v: string | null) => (v === null ? null : visibleLine(v));
  const out = (line: string) => writeOut(line + "\n");
  out(
    `claude's own session ${s.id} · not recorded by nudge · branch ${one(session.branch) ?? "(unknown)"} · started ${s.startedAt} · last active ${s.updatedAt}`,
  );
  out(
    `folder ${one(session.cwd) ?? "(not named in the transcript)"}${s.version ? ` · claude ${s.version}` : ""}${s.model ? ` · ${s.model}` : ""}`,
  );
  out(`transcript ${one(session.file)}`);
  // The full id: an 8-character prefix may begin another project's session too (ambiguous for adopt).
  out(
    s.turns === 0
      ? `${NO_CODE}; it holds no prompt, so there is nothing to adopt`
      : `${NO_CODE}; to record it from here on: nudge session adopt ${s.id}`,
  );
  cutNotice(transcript);
  out("");
  printTable(
    ["TURN", "PROMPT", "TOOLS", "TIME", "RESULT"],
    turns.map((t) => [
      String(t.n),
      oneLine(t.prompt ?? "(no prompt)", 50),
      toolCount(t.entries),
      span(t.startedAt, t.endedAt),
      outcome(t.entries),
    ]),
  );
  out("");
  out(
    `total ${formatCost(s.costUsd)} · ${formatDuration(s.durationMs)} · ${turns.length} turn${turns.length === 1 ? "" : "s"}`,
  );
}

export async function replayClaudeSession(
  session: ClaudeSession,
  options: { turn?: string; speed?: number; idleLimit?: number; verbose?: boolean },
): Promise<void> {
  const transcript = await readClaudeTranscript(session);
  const only = options.turn === undefined ? undefined : parseTurnArg(options.turn);
  if (only !== undefined && !transcript.turns.some((t) => t.n === only)) {
    throw new UserError(
      `claude's session ${session.id} has no turn ${only}`,
      `its turns are 1 to ${transcript.turns.length}`,
    );
  }
  cutNotice(transcript);
  const groups = transcript.turns
    .filter((t) => only === undefined || t.n === only)
    .map((t) => ({
      turn: null,
      pending: null,
      lines: t.lines,
      heading: turnHeader(t.n, t.prompt === null ? null : visible(t.prompt)),
    }));
  if (groups.length === 0) return void writeOut("nothing in this session's transcript yet\n");
  const style = makeStyle(colorEnabled(process.stdout));
  const write = (text: string) => void writeOut(text);
  const cwd = session.cwd ?? process.cwd();
  const renderer = new EventRenderer({
    style,
    write,
    verbose: options.verbose ?? false,
    showPrompts: true,
    cwd,
    notice: stderrNotice,
    ruleDecisions: { repoRoot: cwd },
    markdown: { columns: () => process.stdout.columns || 80 },
  });
  const stop = new AbortController();
  const onSigint = () => stop.abort();
  process.on("SIGINT", onSigint);
  try {
    const pacing = {
      speed: options.speed ?? 1,
      idleLimitMs: (options.idleLimit ?? 2) * 1000,
      realTime: process.stdout.isTTY === true,
    };
    const outcome = await play({ groups, renderer, style, write, pacing, sleep, signal: stop.signal });
    if (outcome === "stopped") write(`\n${style.dim("⏹ replay stopped")}\n`);
  } finally {
    process.off("SIGINT", onSigint);
  }
}

function cutNotice(t: ClaudeTranscript): void {
  if (t.cutAt !== null)
    stderrNotice(
      `! the transcript is ${thousands(t.cutAt)} bytes: only its first part is read (a bounded read of claude's file)`,
    );
}

function toolCount(entries: Entry[]): string {
  const n = entries.filter((e) => e.kind === "tool").length;
  return n === 0 ? "" : `${n} tool${n === 1 ? "" : "s"}`;
}

function outcome(entries: Entry[]): string {
  const errors = entries.filter(
    (e) => (e.kind === "notice" && e.level === "error") || (e.kind === "tool" && e.result?.isError),
  ).length;
  const interrupted = entries.some((e) => e.kind === "notice" && e.text === "turn interrupted");
  return [interrupted ? "interrupted" : "", errors ? `${errors} error${errors === 1 ? "" : "s"}` : ""]
    .filter(Boolean)
    .join(", ");
}

function span(from: string | null, to: string | null): string {
  return from && to ? formatDuration(Date.parse(to) - Date.parse(from)) : "";
}
