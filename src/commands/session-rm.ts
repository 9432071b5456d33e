import { commandStore } from "./command-store.js";
import { Command } from "commander";
import * as z from "../base/zod.js";
import { removalOperation } from "../maintenance/housekeeping-operation.js";
import { runHousekeeping } from "./housekeeping-run.js";
import { parseOptions } from "./parse-options.js";
import { resolveRecordedId } from "./session-source.js";
import { NotRecorded } from "../live/claude-own-sessions.js";
import { UserError } from "../base/errors.js";
import { visible } from "../base/inert-text.js";

const Options = z.object({
  dryRun: z.optional(z.boolean()),
  yes: z.optional(z.boolean()),
  json: z.optional(z.boolean()),
});

export const sessionRmCommand = new Command("rm")
  .description("remove sessions: their bundle, snapshot refs, private index, and the rewind backups made on them")
  .argument("<id...>", "session ids or unique prefixes")
  .option("--dry-run", "print what would be removed and change nothing")
  .option("-y, --yes", "do not ask for confirmation")
  .option("--json", "print the plan and the result as JSON")
  .addHelpText(
    "after",
    `
A session being recorded (or whose claude still runs after its nudge died) is never removed.
Forks made from a session keep working: each has its own ref to the snapshots they share.
The backup \`nudge session rewind --undo\` restores stays until it is no longer the undo target.
The snapshots' git objects are reclaimed by git gc, which nudge never runs itself.

Examples:
  $ nudge session rm 3f2a --dry-run
  $ nudge session rm 3f2a 7c01 --yes`,
  )
  .action(async (ids: string[], raw: unknown) => {
    const o = parseOptions(Options, raw);
    const store = await commandStore(process.cwd());
    // One of claude's own sessions is said as such (nothing of nudge's to remove), before any plan;
    // the plan takes the sessions' own ids (claude's id of an adopted session names it too).
    const resolved: string[] = [];
    for (const id of ids) {
      resolved.push(
        await resolveRecordedId(store, id, "remove").catch((error: unknown) => {
          if (!(error instanceof NotRecorded)) throw error;
          throw new UserError(
            `${visible(id)} is claude's own session, not recorded by nudge: nudge never removes claude's files`,
            `claude keeps it in ${visible(error.session.file)}`,
          );
        }),
      );
    }
    await runHousekeeping(removalOperation(store, resolved), o);
  });
