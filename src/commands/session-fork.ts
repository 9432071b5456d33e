import { Command } from "commander";
import path from "node:path";
import { z } from "zod";
import { openStore, resolveSession } from "../bundle/store.js";
import { forkSession } from "../time-travel/fork-session.js";
import { shellQuote } from "../terminal/format.js";
import { printJson } from "../terminal/output.js";
import { parseOptions, parseTurnArg } from "./parse-options.js";

const Options = z.object({ worktree: z.string().min(1).optional(), json: z.boolean().optional() });

export const sessionForkCommand = new Command("fork")
  .description("start a new session from turn N of another; the original stays as it is")
  .argument("<id>", "session id or unique prefix")
  .argument("[turn]", "the turn to fork at (default: the last)")
  .option("--worktree <path>", "put the fork's code in a new git worktree at <path> (side by side with the original)")
  .option("--json", "machine-readable output")
  .addHelpText(
    "after",
    `
Without --worktree the code of that turn is put in place (undo: nudge session rewind --undo).

Examples:
  $ nudge session fork 3f2a 2 --worktree ../try-b && cd ../try-b && nudge claude run -r <fork id>
  $ nudge session fork 3f2a`,
  )
  .action(async (id: string, turnArg: string | undefined, raw: unknown) => {
    const o = parseOptions(Options, raw);
    const store = await openStore(process.cwd());
    const source = await resolveSession(store, id);
    const turn = turnArg === undefined ? undefined : parseTurnArg(turnArg);
    const fork = await forkSession(store, source, turn, { worktree: o.worktree ? path.resolve(o.worktree) : undefined });
    if (o.json) return printJson({ id: fork.manifest.id, path: fork.dir, parent: fork.manifest.parent, codeAt: fork.codeAt, backup: fork.rewind?.backup.ref ?? null });
    const say = (line: string) => process.stdout.write(line + "\n");
    say(`forked ${source.manifest.id} at turn ${fork.turn} → ${fork.manifest.id}`);
    say(`code of turn ${fork.turn} is in ${fork.codeAt}${fork.rewind ? ` (previous state saved: ${fork.rewind.backup.ref})` : ""}`);
    // A line to paste: the path is quoted so a space or `$(…)` in it cannot split or run anything.
    say(`continue it: ${o.worktree ? `cd ${shellQuote(fork.codeAt)} && ` : ""}nudge claude run -r ${shellQuote(fork.manifest.id)}`);
  });
