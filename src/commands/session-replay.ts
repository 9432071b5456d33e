import { writeOut } from "../terminal/output.js";
import { Command } from "commander";
import * as z from "../base/zod.js";
import {
  groupByTurn,
  readConversationReduced,
  readInputReduced,
  recordedLineCount,
  type TimedLine,
} from "../store/conversation-reader.js";
import { FIRST_VIEW_LIMITS } from "../store/line-reducer.js";
import type { Manifest } from "../store/manifest-schema.js";
import { resolveSession } from "../store/store.js";
import { REMOTE_FLAG, REMOTE_HELP, RemoteOption, sessionSource } from "./session-source.js";
import { turnOf } from "../store/turn-lookup.js";
import { EventRenderer, stderrNotice } from "../terminal/event-renderer.js";
import { mergeInput } from "../store/input-merge.js";
import { play, sleep } from "../terminal/replay-player.js";
import { colorEnabled, makeStyle } from "../terminal/style.js";
import { relocateLine, relocateText, transcriptMoves, type PathMove } from "../sharing/relocate.js";
import { parseOptions, parseTurnArg } from "./parse-options.js";
import { NotRecorded } from "../live/claude-own-sessions.js";
import { replayClaudeSession } from "./claude-own-show.js";

const Options = z.object({
  remote: RemoteOption,
  turn: z.optional(z.string()),
  speed: z.optional(z.coerce.number().check(z.positive())),
  idleLimit: z.optional(z.coerce.number().check(z.nonnegative())),
  verbose: z.optional(z.boolean()),
});

export const sessionReplayCommand = new Command("replay")
  .description("play a recorded conversation back as it looked live, at the recorded pace")
  .argument("<id>", "session id or unique prefix")
  .option(REMOTE_FLAG, REMOTE_HELP)
  .option("--turn <n>", "only this turn")
  .option("--speed <x>", "playback speed: 2 is twice as fast (default 1)")
  .option("--idle-limit <seconds>", "shorten any recorded pause to at most this many seconds (default 2)")
  .option("-v, --verbose", "show tool inputs and outputs, thinking, and subagents' own words")
  .addHelpText(
    "after",
    `
When stdout is not a terminal the replay is instant. Ctrl-C stops it (exit code 0).

Examples:
  $ nudge session replay 3f2a
  $ nudge session replay 3f2a --turn 2 --speed 4
  $ nudge session replay 3f2a --idle-limit 0.5 -v
  $ nudge session replay 3f2a > conversation.txt
  $ nudge session replay 3f2a9c01de --remote`,
  )
  .action(async (id: string, raw: unknown) => {
    const options = parseOptions(Options, raw);
    const source = await sessionSource(id, options.remote).catch((error: unknown) => {
      if (error instanceof NotRecorded) return error.session;
      throw error;
    });
    if ("source" in source) return replayClaudeSession(source, options);
    const session = await resolveSession(source.store, source.id);
    const m = session.manifest;
    // A bad --turn is refused before anything else is said about the bundle.
    const only = options.turn === undefined ? undefined : turnOf(m, parseTurnArg(options.turn), 1).n;
    const moves = m.origin ? transcriptMoves({ oldRoot: m.origin.root, newRoot: m.repo.root }) : [];
    // Long lines reduced as they are read: a terminal shows a tool's first lines, never a 50 MB input whole.
    const lines = inThisClone(moves, await readConversationReduced(session.dir, FIRST_VIEW_LIMITS));
    warnIfLinesMissing(m, lines);
    // What nudge wrote to claude (the user's answers to its questions) goes where its time puts
    // it, before a turn is picked: an answer belongs to the turn it was given in.
    const input = inThisClone(moves, await readInputReduced(session.dir, FIRST_VIEW_LIMITS)).map((line) => ({
      ...line,
      input: true as const,
    }));
    let groups = mergeInput(groupByTurn(promptsInThisClone(moves, m), lines), input);
    if (only !== undefined) groups = groups.filter((g) => g.turn?.n === only);
    if (groups.length === 0) return void writeOut("nothing recorded in this session yet\n");

    const style = makeStyle(colorEnabled(process.stdout));
    const write = (text: string) => void writeOut(text);
    const renderer = new EventRenderer({
      style,
      write,
      verbose: options.verbose ?? false,
      showPrompts: true,
      cwd: m.repo.cwd,
      notice: stderrNotice,
      ruleDecisions: { repoRoot: m.repo.root },
      markdown: { columns: () => process.stdout.columns || 80 },
    });
    const stop = new AbortController();
    // Ctrl-C ends the replay, not nudge mid-line: the loop notices, the cursor is left on a fresh line.
    const onSigint = () => stop.abort();
    process.on("SIGINT", onSigint);
    try {
      const outcome = await play({
        groups,
        renderer,
        style,
        write,
        pacing: {
          speed: options.speed ?? 1,
          idleLimitMs: (options.idleLimit ?? 2) * 1000,
          realTime: process.stdout.isTTY === true,
        },
        sleep,
        signal: stop.signal,
      });
      if (outcome === "stopped") write(`\n${style.dim("⏹ replay stopped")}\n`);
    } finally {
      process.off("SIGINT", onSigint);
    }
  });

/**
 * An imported session's lines (`moves`: from the exporter's folders to this clone's) name the exporter's folders (/home/ana/app/src/x.ts): shown as
 * this clone's, as its transcript was placed, so paths read relative to where it is replayed.
 * The bundle keeps claude's bytes; only what is shown moves.
 */
function inThisClone(moves: PathMove[], lines: TimedLine[]): TimedLine[] {
  if (moves.length === 0) return lines;
  return lines.map((line) => {
    const text = line.bytes.toString("utf8");
    const moved = relocateLine(text, moves);
    return moved === text ? line : { ...line, bytes: Buffer.from(moved) };
  });
}

/** The turns' prompts (each turn's header line) moved the same way. */
function promptsInThisClone(moves: PathMove[], m: Manifest): Manifest {
  if (moves.length === 0) return m;
  const move = (prompt: string) => relocateText(prompt, moves);
  return {
    ...m,
    turns: m.turns.map((t) => ({ ...t, prompt: t.prompt === null ? null : move(t.prompt) })),
    unsaved: m.unsaved.map((u) => ({ ...u, prompt: move(u.prompt) })),
  };
}

/**
 * A damaged conversation (a piece of conversation.d gone, conversation.jsonl cut) still replays what it holds (exit 0: that part is still useful),
 * but turns that look empty because their lines are gone must not pass for turns that were empty.
 */
function warnIfLinesMissing(manifest: Manifest, lines: TimedLine[]): void {
  const recorded = recordedLineCount(manifest);
  if (lines.length >= recorded) return;
  const holds = `${lines.length} line${lines.length === 1 ? "" : "s"}`;
  stderrNotice(
    `! the conversation (conversation.d and conversation.jsonl) holds ${holds} while the manifest records ${recorded} (truncated or missing); replaying what is left`,
  );
}
