import { Command } from "commander";
import * as z from "../base/zod.js";
import { resolveSession } from "../store/store.js";
import { REMOTE_FLAG, REMOTE_HELP, RemoteOption, sessionSource } from "./session-source.js";
import { UserError } from "../base/errors.js";
import { pickRange, turnDiff } from "../view/turn-diff.js";
import { renderPatch, renderStat } from "../terminal/diff-renderer.js";
import { highlightDiffLine } from "../terminal/diff-highlight.js";
import { page } from "../terminal/pager.js";
import { printJson, writeErr, writeOut } from "../terminal/output.js";
import { colorEnabled, makeStyle } from "../terminal/style.js";
import { parseOptions, parseTurnArg } from "./parse-options.js";

const Options = z.object({
  remote: RemoteOption,
  stat: z.optional(z.boolean()),
  json: z.optional(z.boolean()),
  from: z.optional(z.string()),
  to: z.optional(z.string()),
  edits: z.optional(z.boolean()),
});

export const sessionDiffCommand = new Command("diff")
  .description("show what a turn changed in the code, or what changed between two turns")
  .argument("<id>", "session id or unique prefix")
  .argument("[turn]", "the turn whose changes to show (0: the uncommitted work the session started from)")
  .option(REMOTE_FLAG, REMOTE_HELP)
  .option("--from <turn>", "compare from this turn's code…")
  .option("--to <turn>", "…to this turn's code")
  .option("--edits", "with a turn: the edits you made before it (a turn's own diff leaves them out)")
  .option("--stat", "one line per file with +/- counts, and a total")
  .option("--json", "machine-readable list of changed files")
  .addHelpText(
    "after",
    `
A turn's diff is what happened during the turn. What you changed in the files between two turns
is recorded apart, as your edits before the next one: --edits shows them. A file that left the
snapshot because an ignore rule now covers it is marked "now ignored": it is still on disk.
Binary files are named with their size, never printed.

Examples:
  $ nudge session diff 3f2a 2
  $ nudge session diff 3f2a 3 --edits
  $ nudge session diff 3f2a --from 0 --to 3 --stat
  $ nudge session diff 3f2a 3 --json | jq '.files[].path'
  $ FORCE_COLOR=1 nudge session diff 3f2a 1 | less -R
  $ nudge session diff 3f2a9c01de 2 --remote # a published session's turn, without pulling it`,
  )
  .action(async (id: string, turnArg: string | undefined, raw: unknown) => {
    const options = parseOptions(Options, raw);
    if (options.stat && options.json) throw new UserError("--stat and --json cannot be used together", "pick one");
    const { store, id: sourceId } = await sessionSource(id, options.remote);
    const m = (await resolveSession(store, sourceId)).manifest;
    const turn = (arg: string | undefined, name: string) => (arg === undefined ? undefined : parseTurnArg(arg, name));
    const range = pickRange(
      m,
      turn(turnArg, "turn"),
      turn(options.from, "--from"),
      turn(options.to, "--to"),
      options.edits,
    );
    const ignored = new Set(range.nowIgnored ?? []);
    const files = (await turnDiff(store, m, range)).map((f) => (ignored.has(f.path) ? { ...f, nowIgnored: true } : f));
    // Claude's turns in the range that ran beside another recording (--force): their changes may be its.
    const sharedTurns = options.edits
      ? []
      : m.turns.filter((t) => t.n > (range.from ?? -1) && t.n <= range.to && t.sharedWith?.length);
    const shared = [...new Set(sharedTurns.flatMap((t) => t.sharedWith ?? []))];
    if (options.json) {
      // The modes say what a chmod-only change is (0 insertions, 0 deletions otherwise).
      const list = files.map(
        ({ path, oldPath, status, insertions, deletions, binary, oldMode, newMode, nowIgnored }) => ({
          path,
          oldPath,
          status,
          insertions,
          deletions,
          binary,
          oldMode,
          newMode,
          nowIgnored: nowIgnored ?? false,
        }),
      );
      return printJson({ id: m.id, from: range.from, to: range.to, sharedWith: shared, files: list });
    }
    if (shared.length) {
      const turns = `turn${sharedTurns.length === 1 ? "" : "s"} ${sharedTurns.map((t) => t.n).join(", ")}`;
      writeErr(
        `! shared work tree: session${shared.length === 1 ? "" : "s"} ${shared.join(", ")} also recorded here during ${turns}; these changes may include ${shared.length === 1 ? "its own" : "their own"}\n`,
      );
    }
    const style = makeStyle(colorEnabled(process.stdout));
    if (files.length === 0) return void writeOut(`${style.dim(`no changes ${range.label}`)}\n`);
    if (options.stat) return void writeOut(renderStat(files, style));
    // With colour, each file's code highlighted by its language; on a terminal, through the pager.
    await page(renderPatch(files, style, style.enabled ? highlightDiffLine : undefined));
  });
