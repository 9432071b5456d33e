import { commandStore } from "./command-store.js";
import { Command } from "commander";
import { resolveRecorded } from "./session-source.js";
import { existsSync } from "node:fs";
import * as z from "../base/zod.js";
import { UserError } from "../base/errors.js";
import { openStore } from "../store/store.js";
import {
  describeInterrupted,
  planInterrupted,
  resolveInterrupted,
  type Resolution,
} from "../time-travel/interrupted.js";
import { withUndo, withWorkTree } from "../time-travel/rewind.js";
import { undoneName } from "../time-travel/rewind-log.js";
import { rewindOperation, undoOperation } from "../time-travel/operations.js";
import { describeRewound } from "../time-travel/rewind-plan.js";
import { printJson, writeLines, writeOut, writeErr } from "../terminal/output.js";
import { sayCutOffOnCtrlC } from "./cut-off-notice.js";
import { confirm, confirmPlan } from "./confirm.js";
import { parseOptions, parseTurnArg } from "./parse-options.js";

const Options = z.object({
  dryRun: z.optional(z.boolean()),
  codeOnly: z.optional(z.boolean()),
  conversationOnly: z.optional(z.boolean()),
  resetHead: z.optional(z.boolean()),
  includeShared: z.optional(z.boolean()),
  yes: z.optional(z.boolean()),
  undo: z.optional(z.boolean()),
  continue: z.optional(z.boolean()),
  abort: z.optional(z.boolean()),
  json: z.optional(z.boolean()),
});
type Options = z.infer<typeof Options>;

const say = (line: string) => writeOut(line + "\n");

export const sessionRewindCommand = new Command("rewind")
  .description("put the code and claude's memory back to how they were after a turn")
  .argument("[id]", "session id or unique prefix")
  .argument("[turn]", "the turn to go back to (0 = before the first prompt)")
  .option("--dry-run", "print the plan (files written, deleted, backed up) and change nothing")
  .option("--code-only", "rewind the files only")
  .option("--conversation-only", "rewind claude's memory only; the files stay")
  .option("--reset-head", "also move the session's branch back to the commit HEAD was at that turn")
  .option(
    "--include-shared",
    "also rewind files changed in turns another recording shared the work tree with (claude run --force)",
  )
  .option("-y, --yes", "do not ask for confirmation")
  .option("--undo", "restore exactly the state from before the last rewind")
  .option("--continue", "finish a rewind or undo that was interrupted halfway")
  .option("--abort", "roll back a rewind or undo that was interrupted halfway")
  .option("--json", "print the plan or the result as JSON")
  .addHelpText(
    "after",
    `
The current state is always saved first (a backup snapshot under refs/nudge/backup/), so a
rewind can be undone. The plan names your own changes that no snapshot holds apart from the rest.
Ignored files are never touched; HEAD, branch and index only with --reset-head, which moves only
the branch the session was recorded on. A rewind cut off halfway (a kill, a crash) is found by the
next command; finish it with --continue or put everything back with --abort.

Examples:
  $ nudge session rewind 3f2a 1 --dry-run
  $ nudge session rewind 3f2a 1 --yes && nudge claude run -r 3f2a
  $ nudge session rewind --undo --dry-run
  $ nudge session rewind --undo
  $ nudge session rewind --continue`,
  )
  .action(async (id: string | undefined, turnArg: string | undefined, raw: unknown) => {
    const o = parseOptions(Options, raw);
    const store = await commandStore(process.cwd());
    const modes = [o.undo, o.continue, o.abort].filter(Boolean).length;
    if (modes > 1) throw new UserError("--undo, --continue and --abort exclude each other", "pick one");
    if (modes === 1) {
      if (id)
        throw new UserError(
          `${o.undo ? "--undo" : o.continue ? "--continue" : "--abort"} takes no session or turn`,
          "run it without them",
        );
      if (o.codeOnly || o.conversationOnly || o.resetHead) {
        throw new UserError(
          "--undo, --continue and --abort put back or finish everything; they take no --code-only, --conversation-only or --reset-head",
          "run it without those (add --dry-run to see what it would do)",
        );
      }
      return o.undo ? undo(store, o) : interrupted(store, o, o.continue ? "continue" : "abort");
    }
    if (!id || turnArg === undefined)
      throw new UserError("rewind needs a session and a turn", "e.g. nudge session rewind 3f2a 2 (or --undo)");
    if (o.codeOnly && o.conversationOnly)
      throw new UserError("--code-only and --conversation-only exclude each other", "pass one, or neither for both");
    const session = await resolveRecorded(store, id, "rewind");
    const turn = parseTurnArg(turnArg);
    const scope = o.codeOnly ? "code" : o.conversationOnly ? "conversation" : "both";
    await withWorkTree(store, session.manifest.repo.root, `rewinding session ${session.manifest.id}`, async () => {
      const op = rewindOperation(store, session, turn, {
        scope,
        resetHead: o.resetHead ?? false,
        includeShared: o.includeShared ?? false,
      });
      const shown = await op.prepare();
      const { plan } = shown;
      if (o.dryRun) return o.json ? printJson({ dryRun: true, plan }) : writeLines(op.describe(shown));
      if (!o.json) writeLines(op.describe(shown));
      const confirmed = await confirmPlan(op, shown, o.yes, "rewind");
      const record = await sayCutOffOnCtrlC(() => op.apply(confirmed));
      if (o.json) return printJson({ plan, record });
      const [rewound, ...next] = describeRewound(plan, record);
      say(rewound!);
      // Node keeps the path of the folder we started in; the rewind may have deleted that folder.
      if (!existsSync(process.cwd()))
        say(`the folder you are in did not exist at turn ${plan.turn}: cd ${record.root}`);
      writeLines(next);
    });
  });

async function undo(store: Awaited<ReturnType<typeof openStore>>, o: Options): Promise<void> {
  await withUndo(store, async () => {
    const op = undoOperation(store);
    const shown = await op.prepare();
    if (o.dryRun) return o.json ? printJson({ dryRun: true, ...shown.plan }) : writeLines(op.describe(shown));
    // Like a rewind: shown and asked on a terminal, --yes without one.
    if (!o.yes && process.stdin.isTTY && !o.json) writeLines(op.describe(shown));
    const confirmed = await confirmPlan(op, shown, o.yes, "undo");
    const { record, savedEdits, notRestored } = await sayCutOffOnCtrlC(() => op.apply(confirmed));
    for (const file of notRestored) writeErr(`! could not write back ${file}\n`);
    if (o.json) return printJson({ undone: record, savedEdits, notRestored });
    const forkKept = shown.plan.forkGone
      ? ""
      : `; the fork ${record.fork} stays recorded (nudge session rm ${record.fork} removes it)`;
    say(
      record.fork
        ? `undid the fork of ${record.sessionId} at turn ${record.turn}: the files are as they were before it${forkKept}`
        : `undid the rewind of ${record.sessionId} to turn ${record.turn}: the files are as they were before it`,
    );
    if (savedEdits) say(`edits made after that rewind are kept under ${savedEdits}`);
  });
}

async function interrupted(store: Awaited<ReturnType<typeof openStore>>, o: Options, how: Resolution): Promise<void> {
  await withWorkTree(
    store,
    store.repoRoot,
    how === "continue" ? "finishing an interrupted rewind" : "rolling back an interrupted rewind",
    async () => {
      const plan = await planInterrupted(store, how);
      if (o.dryRun)
        return o.json
          ? printJson({ dryRun: true, ...plan, state: undefined, changes: undefined })
          : writeLines(describeInterrupted(plan));
      if (!o.json) writeLines(describeInterrupted(plan));
      await confirm(`${how === "continue" ? "finish" : "roll back"} it?`, o.yes);
      const record = await sayCutOffOnCtrlC(() => resolveInterrupted(store, plan));
      if (o.json) return printJson({ [how === "continue" ? "finished" : "rolledBack"]: record });
      say(
        how === "abort"
          ? "rolled back: the work tree is as it was before"
          : record.kind === "undo"
            ? `finished: the files are as they were before ${undoneName(record)} of ${record.sessionId} ${record.undoesFork ? "at" : "to"} turn ${record.turn}`
            : `finished: the work tree is at turn ${record.turn} of ${record.sessionId}`,
      );
      if (how === "continue" && record.fork)
        say(
          `forked ${record.sessionId} at turn ${record.turn} → ${record.fork} (continue it: nudge claude run -r ${record.fork})`,
        );
    },
  );
}
