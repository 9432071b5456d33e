import { commandStore } from "./command-store.js";
import { Command } from "commander";
import * as z from "../base/zod.js";
import { repairJson, repairOperation } from "../maintenance/repair-apply.js";
import { printJson, writeLines, writeOut } from "../terminal/output.js";
import { confirm } from "./confirm.js";
import { parseOptions } from "./parse-options.js";
import { resolveRecordedId } from "./session-source.js";

const Options = z.object({
  dryRun: z.optional(z.boolean()),
  yes: z.optional(z.boolean()),
  json: z.optional(z.boolean()),
});

const say = (line: string) => writeOut(line + "\n");

export const sessionRepairCommand = new Command("repair")
  .description("rebuild a session's lost or cut-short turns.jsonl from its snapshots and logs")
  .argument("<id>", "session id or unique prefix")
  .option("--dry-run", "print what would be written and change nothing")
  .option("-y, --yes", "do not ask for confirmation")
  .option("--json", "print the plan as JSON")
  .addHelpText(
    "after",
    `
A session whose turns.jsonl was deleted, emptied or cut short is refused by every command, so that
nothing records over it. This rebuilds the missing turn records: the turn numbers, prompts,
snapshots and patches from the snapshot chain under refs/nudge/sessions/<id> and changes/; the
lines, results, costs and claude's session from conversation.jsonl and input.jsonl. The records the
journal still holds are kept as they are; a patch file that is gone is made again from the
snapshots. A field nothing tells is named in the plan and in the turn's "repaired" mark.

Examples:
  $ nudge session repair 3f2a --dry-run
  $ nudge session repair 3f2a --yes && nudge claude run -r 3f2a`,
  )
  .action(async (id: string, raw: unknown) => {
    const o = parseOptions(Options, raw);
    const store = await commandStore(process.cwd());
    // The session's own id: a prefix, or claude's id of an adopted session, names it.
    const op = repairOperation(store, await resolveRecordedId(store, id, "repair"));
    const plan = await op.prepare();
    if (o.json && o.dryRun) return printJson({ dryRun: true, plan: repairJson(plan) });
    if (!o.json) writeLines(op.describe(plan));
    if (o.dryRun) return say("dry run: nothing was changed");
    await confirm(op.question(plan), o.yes);
    await op.apply(plan);
    if (o.json) return printJson({ plan: repairJson(plan), repaired: true });
    say(
      `repaired session ${plan.id}: turns.jsonl holds turns 0 to ${plan.rebuilt.at(-1)!.n} · continue it with: nudge claude run -r ${plan.id}`,
    );
  });
