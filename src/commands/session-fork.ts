import { commandStore } from "./command-store.js";
import { Command } from "commander";
import { resolveRecorded } from "./session-source.js";
import path from "node:path";
import * as z from "../base/zod.js";
import { forkIntoWorktree, forkTurn, type ForkOutcome } from "../time-travel/fork-session.js";
import { forkInPlaceOperation, forkIntoWorktreeOperation } from "../time-travel/operations.js";
import { withWorkTree } from "../time-travel/rewind.js";
import { describeForked } from "../time-travel/fork-describe.js";
import { printJson, writeLines, writeOut } from "../terminal/output.js";
import { confirmPlan } from "./confirm.js";
import { sayCutOffOnCtrlC } from "./cut-off-notice.js";
import { parseOptions, parseTurnArg } from "./parse-options.js";

const Options = z.object({
  worktree: z.optional(z.string().check(z.minLength(1))),
  dryRun: z.optional(z.boolean()),
  yes: z.optional(z.boolean()),
  json: z.optional(z.boolean()),
});

export const sessionForkCommand = new Command("fork")
  .description("start a new session from turn N of another; the original stays as it is")
  .argument("<id>", "session id or unique prefix")
  .argument("[turn]", "the turn to fork at (default: the last)")
  .option("--worktree <path>", "put the fork's code in a new git worktree at <path> (side by side with the original)")
  .option("--dry-run", "print the plan (in place: files written, deleted, backed up) and change nothing")
  .option("-y, --yes", "in place: do not ask for confirmation")
  .option("--json", "machine-readable output")
  .addHelpText(
    "after",
    `
Without --worktree the code of that turn is put in place, as a rewind of the code is: the plan is
shown and confirmed first, the current state is backed up (undo: nudge session rewind --undo).
With --worktree nothing of yours is touched.

Examples:
  $ nudge session fork 3f2a 2 --worktree ../try-b && cd ../try-b && nudge claude run -r <fork id>
  $ nudge session fork 3f2a --dry-run
  $ nudge session fork 3f2a 2 --yes`,
  )
  .action(async (id: string, turnArg: string | undefined, raw: unknown) => {
    const o = parseOptions(Options, raw);
    const store = await commandStore(process.cwd());
    const source = await resolveRecorded(store, id, "fork");
    const turn = forkTurn(source, turnArg === undefined ? undefined : parseTurnArg(turnArg));
    const say = (line: string) => writeOut(line + "\n");
    let fork: ForkOutcome | null;
    if (o.worktree) {
      const op = forkIntoWorktreeOperation(store, source, turn, path.resolve(o.worktree));
      if (o.dryRun) {
        const plan = await op.prepare();
        if (o.json)
          return printJson({
            dryRun: true,
            worktree: plan.root,
            commit: plan.commit,
            session: source.manifest.id,
            turn,
          });
        const [where, untouched] = op.describe(plan);
        say(where!);
        say(`${untouched}; nothing was done (dry run)`);
        return;
      }
      // Nothing of the user's is touched, so nothing to ask: it plans (and checks) as it goes.
      fork = await forkIntoWorktree(store, source, turn, path.resolve(o.worktree));
    } else {
      fork = await withWorkTree(store, source.manifest.repo.root, `forking session ${source.manifest.id}`, async () => {
        const op = forkInPlaceOperation(store, source, turn);
        const shown = await op.prepare();
        if (o.dryRun) {
          if (o.json) printJson({ dryRun: true, plan: shown.plan });
          else writeLines(op.describe(shown));
          return null;
        }
        if (!o.json && op.asks!(shown)) writeLines(op.describe(shown));
        const confirmed = await confirmPlan(op, shown, o.yes, "fork");
        return sayCutOffOnCtrlC(() => op.apply(confirmed));
      });
    }
    if (!fork) return;
    if (o.json)
      return printJson({
        id: fork.manifest.id,
        path: fork.dir,
        parent: fork.manifest.parent,
        codeAt: fork.codeAt,
        backup: fork.rewind?.backup.ref ?? null,
      });
    writeLines(describeForked(source.manifest.id, fork, Boolean(o.worktree)));
  });
