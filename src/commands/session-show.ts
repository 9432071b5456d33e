import { Command } from "commander";
import * as z from "../base/zod.js";
import { resolveSession } from "../store/store.js";
import { REMOTE_FLAG, REMOTE_HELP, RemoteOption, sessionSource } from "./session-source.js";
import {
  describeCompaction,
  formatCost,
  formatDuration,
  formatStat,
  formatTokens,
  oneLine,
  turnOutcome,
} from "../base/format.js";
import { printJson, printTable, writeOut } from "../terminal/output.js";
import { parseOptions } from "./parse-options.js";
import { inertValue, visible } from "../base/inert-text.js";
import { summarize } from "../store/summary.js";
import type { Turn } from "../store/manifest-schema.js";
import { describeCheck } from "../loop/loop-report.js";
import { promptImageNames } from "../view/prompt-image-names.js";
import { turnDuration } from "../view/turn-summary.js";
import { NotRecorded } from "../live/claude-own-sessions.js";
import { showClaudeSession } from "./claude-own-show.js";

const Options = z.object({ remote: RemoteOption, json: z.optional(z.boolean()) });

export const sessionShowCommand = new Command("show")
  .description("show one session turn by turn")
  .argument("<id>", "session id or unique prefix")
  .option(REMOTE_FLAG, REMOTE_HELP)
  .option("--json", "machine-readable output")
  .addHelpText(
    "after",
    "\nExamples:\n  $ nudge session show 3f2a\n  $ nudge session show 3f2a --json | jq '.turns[1].patch'\n  $ nudge session show 3f2a9c01de --remote   # a teammate's, published (nudge session fetch)",
  )
  .action(async (id: string, raw: unknown) => {
    const options = parseOptions(Options, raw);
    const source = await sessionSource(id, options.remote).catch((error: unknown) => {
      if (error instanceof NotRecorded) return error.session;
      throw error;
    });
    if ("source" in source) return showClaudeSession(source, options.json ?? false);
    const session = await resolveSession(source.store, source.id);
    const manifest = session.manifest;
    const s = summarize({ dir: session.dir, header: manifest, state: session.state });
    if (options.json) return printJson({ ...s, repo: manifest.repo, claude: manifest.claude, turns: manifest.turns });
    // A bundle may be a teammate's import: its prompts, branch and origin are shown, never obeyed.
    const m = inertValue(manifest);
    const out = (line: string) => writeOut(line + "\n");
    if (source.published)
      out(
        `published session ${source.published} on ${visible(source.remote!)}, read where it is (not pulled: nudge session pull ${source.published})`,
      );
    out(`session ${m.id} · ${s.state} · branch ${m.repo.branch ?? "(detached)"} · started ${m.createdAt}`);
    if (m.claude.version || m.claude.model)
      out(`claude ${m.claude.version ?? "(version unknown)"} · ${m.claude.model ?? "(model unknown)"}`);
    if (m.parent) out(`fork of ${m.parent.id} at turn ${m.parent.turn}`);
    if (m.origin)
      out(
        `imported: exported by ${m.origin.exportedBy ?? "(unknown)"} from ${m.origin.root}${m.origin.writtenAt ? ` on ${m.origin.writtenAt}` : ""} (session ${m.origin.sourceId} there), imported ${m.origin.importedAt}`,
      );
    if (m.adopted)
      out(
        `adopted ${m.adopted.at} from claude's own session ${m.adopted.claudeSessionId}: turns 1 to ${m.adopted.turns} hold its conversation; their code was never recorded (each holds the work tree as it was at adoption)`,
      );
    if (m.rewoundTo !== null) out(`rewound to turn ${m.rewoundTo}; the next run continues from there in a fork`);
    const repaired = m.turns.filter((t) => t.repaired);
    if (repaired.length) {
      // What a repair could not recover is said once here; the turns' RESULT says which were rebuilt.
      const unknown = [...new Set(repaired.flatMap((t) => t.repaired!.unknown))];
      out(
        `repaired ${m.repairedAt ?? repaired[0]!.repaired!.at}: turns ${repaired[0]!.n} to ${repaired.at(-1)!.n} were rebuilt from the snapshots and logs${unknown.length ? ` (not recovered: ${unknown.join(", ")})` : ""}`,
      );
    }
    out(`bundle ${session.dir}`);
    out("");
    // An agentic loop's turns carry their check's result: a column of its own, only then.
    const checks = m.turns.some((t) => t.check);
    // And, with the options of issue 20, which iteration each was, on which model, what it promised.
    const loops = m.turns.some((t) => t.loop);
    const changes = (patch: Turn["patch"]) =>
      formatStat(patch) +
      (patch.binaryFiles ? ` (${patch.binaryFiles} binary)` : "") +
      (patch.nowIgnored?.length ? ` (${patch.nowIgnored.length} now ignored, still on disk)` : "");
    const rows = m.turns.flatMap((t) => [
      // What the user changed between turns is theirs: a row of its own, before the turn it preceded.
      ...(t.edits
        ? [["", "  your edits", changes(t.edits.patch), "", "", "", ...(checks ? [""] : []), ...(loops ? [""] : [])]]
        : []),
      [
        String(t.n),
        t.n === 0 ? "(starting state)" : oneLine(t.prompt ?? "", 50),
        changes(t.patch) +
          (t.sharedWith?.length ? ` (shared work tree: may include ${t.sharedWith.join(", ")}'s)` : ""),
        t.result === null && t.tokens ? `– (${formatTokens(t.tokens)})` : formatCost(t.result?.costUsd),
        formatDuration(turnDuration(t)),
        (t.n === 0
          ? ""
          : t.compaction && t.status === "complete" && !t.result?.isError
            ? describeCompaction(t.compaction)
            : turnOutcome(t)) + (t.repaired ? (t.n === 0 ? "(repaired)" : " (repaired)") : ""),
        ...(checks ? [t.check ? `${t.check.exitCode === 0 ? "✓" : "✗"} ${describeCheck(t.check)}` : ""] : []),
        ...(loops ? [t.loop ? describeLoopTurn(t.loop) : ""] : []),
      ],
    ]);
    printTable(
      ["TURN", "PROMPT", "CHANGES", "COST", "TIME", "RESULT", ...(checks ? ["CHECK"] : []), ...(loops ? ["LOOP"] : [])],
      rows,
    );
    // The images prompts carried, named as replay names them (the table's prompt column has no room).
    const images = await promptImageNames(session.dir, manifest.turns);
    if (images.length) {
      out("");
      for (const i of images) out(`${i.turn === null ? "unsaved turn" : `turn ${i.turn}`}: ${visible(i.label)}`);
    }
    out("");
    const tokens = m.turns.flatMap((t) => (t.result === null && t.tokens ? [t.tokens] : []));
    // claude's own UI writes no cost: its turns' tokens are said instead, and that the cost is not known.
    const unpriced = tokens.length
      ? ` (${tokens.length === s.turns ? "" : `+ ${tokens.length} turn${tokens.length === 1 ? "" : "s"} of `}${formatTokens(
          tokens.reduce((a, t) => ({
            input: a.input + t.input,
            output: a.output + t.output,
            cacheRead: a.cacheRead + t.cacheRead,
            cacheWrite: a.cacheWrite + t.cacheWrite,
          })),
        )}; claude's own UI reports no cost)`
      : "";
    out(
      `total ${formatCost(s.costUsd)}${unpriced} · ${formatDuration(s.durationMs)} · ${s.turns} turn${s.turns === 1 ? "" : "s"}`,
    );
  });

/** "iteration 2 · fresh · claude-haiku-4-5 · promised COMPLETE", "verifier of 2 · ✗ the tests fail". */
function describeLoopTurn(l: NonNullable<Turn["loop"]>): string {
  const model = l.model ?? "default model";
  if (l.role === "verifier") {
    const v = l.verdict;
    return `verifier of ${l.iteration} · ${model} · ${v?.pass ? "✓ pass" : `✗ ${v?.reason ? oneLine(v.reason, 40) : "no verdict"}`}`;
  }
  return `iteration ${l.iteration}${l.fresh ? " · fresh" : ""} · ${model}${l.promise ? ` · promised ${oneLine(l.promise, 30)}` : ""}`;
}
