import { Command } from "commander";
import { existsSync } from "node:fs";
import { z } from "zod";
import { UserError } from "../errors.js";
import { openStore, resolveSession } from "../bundle/store.js";
import { applyRewind, prepareRewind, prepareUndo, undoLastRewind } from "../time-travel/rewind.js";
import { describePlan, describeUndo } from "../time-travel/rewind-plan.js";
import { printJson } from "../terminal/output.js";
import { confirm } from "./confirm.js";
import { parseOptions, parseTurnArg } from "./parse-options.js";

const Options = z.object({
  dryRun: z.boolean().optional(),
  codeOnly: z.boolean().optional(),
  conversationOnly: z.boolean().optional(),
  resetHead: z.boolean().optional(),
  yes: z.boolean().optional(),
  undo: z.boolean().optional(),
  json: z.boolean().optional(),
});

export const sessionRewindCommand = new Command("rewind")
  .description("put the code and claude's memory back to how they were after a turn")
  .argument("[id]", "session id or unique prefix")
  .argument("[turn]", "the turn to go back to (0 = before the first prompt)")
  .option("--dry-run", "print the plan (files written, deleted, backed up) and change nothing")
  .option("--code-only", "rewind the files only")
  .option("--conversation-only", "rewind claude's memory only; the files stay")
  .option("--reset-head", "also move the current branch back to the commit HEAD was at that turn")
  .option("-y, --yes", "do not ask for confirmation")
  .option("--undo", "restore exactly the state from before the last rewind")
  .option("--json", "print the plan or the result as JSON")
  .addHelpText(
    "after",
    `
The current state is always saved first (a backup snapshot under refs/nudge/backup/), so a
rewind can be undone. Ignored files are never touched; HEAD, branch and index only with --reset-head.

Examples:
  $ nudge session rewind 3f2a 1 --dry-run
  $ nudge session rewind 3f2a 1 --yes && nudge claude run -r 3f2a
  $ nudge session rewind --undo --dry-run
  $ nudge session rewind --undo`,
  )
  .action(async (id: string | undefined, turnArg: string | undefined, raw: unknown) => {
    const o = parseOptions(Options, raw);
    const store = await openStore(process.cwd());
    const say = (line: string) => process.stdout.write(line + "\n");
    if (o.undo) {
      if (id) throw new UserError("--undo takes no session or turn", "run: nudge session rewind --undo");
      if (o.codeOnly || o.conversationOnly || o.resetHead) {
        throw new UserError("--undo puts back everything the last rewind changed; it takes no --code-only, --conversation-only or --reset-head", "run: nudge session rewind --undo (add --dry-run to see what it would do)");
      }
      const prepared = await prepareUndo(store);
      if (o.dryRun) return o.json ? printJson({ dryRun: true, ...prepared.plan }) : describeUndo(prepared.plan).forEach(say);
      const { record, savedEdits } = await undoLastRewind(store, prepared);
      if (o.json) return printJson({ undone: record, savedEdits });
      say(`undid the rewind of ${record.sessionId} to turn ${record.turn}: the files are as they were before it`);
      if (savedEdits) say(`edits made after that rewind are kept under ${savedEdits}`);
      return;
    }
    if (!id || turnArg === undefined) throw new UserError("rewind needs a session and a turn", "e.g. nudge session rewind 3f2a 2 (or --undo)");
    if (o.codeOnly && o.conversationOnly) throw new UserError("--code-only and --conversation-only exclude each other", "pass one, or neither for both");
    const session = await resolveSession(store, id);
    const scope = o.codeOnly ? "code" : o.conversationOnly ? "conversation" : "both";
    const prepare = () => prepareRewind(store, session, parseTurnArg(turnArg), { scope, resetHead: o.resetHead ?? false });
    const prepared = await prepare();
    const { plan, state } = prepared;
    if (o.dryRun) return o.json ? printJson({ dryRun: true, plan }) : describePlan(plan).forEach(say);
    if (!o.json) describePlan(plan).forEach(say);
    if (await confirm(`rewind ${plan.sessionId} to turn ${plan.turn}?`, o.yes)) {
      // A person took time to answer: the plan holds only if the work tree is still what it showed.
      const again = await prepare();
      if (again.state.tree !== state.tree) {
        throw new UserError("the work tree changed while waiting for your answer; nothing was changed", "run the rewind again to see the new plan");
      }
    }
    const record = await applyRewind(store, session, prepared);
    if (o.json) return printJson({ plan, record });
    say(`rewound to turn ${plan.turn} · backup ${record.backup.ref} · undo: nudge session rewind --undo`);
    // Node keeps the path of the folder we started in; the rewind may have deleted that folder.
    if (!existsSync(process.cwd())) say(`the folder you are in did not exist at turn ${plan.turn}: cd ${record.root}`);
    if (plan.scope !== "code") say(`continue the conversation from there: nudge claude run -r ${plan.sessionId}`);
  });
