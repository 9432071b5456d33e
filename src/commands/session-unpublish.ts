import { commandStore } from "./command-store.js";
import { Command } from "commander";
import * as z from "../base/zod.js";
import { unpublishSession } from "../sync/unpublish-session.js";
import { resolveRemote } from "../sync/sync-remote.js";
import { visible } from "../base/inert-text.js";
import { printJson, writeOut } from "../terminal/output.js";
import { parseOptions } from "./parse-options.js";

const Options = z.object({
  remote: z.optional(z.string().check(z.minLength(1))),
  force: z.optional(z.boolean()),
  dryRun: z.optional(z.boolean()),
  json: z.optional(z.boolean()),
});

export const sessionUnpublishCommand = new Command("unpublish")
  .description("remove a published session from a git remote")
  .argument("<id>", "your session's id, or the published id (or the start of either)")
  .option(
    "--remote <name|url>",
    "from where (default: git config nudge.remote, else the branch's upstream remote, else origin)",
  )
  .option("--force", "remove it even if it was not published from here")
  .option("--dry-run", "say what would be removed; remove nothing")
  .option("--json", "machine-readable output")
  .addHelpText(
    "after",
    `
Deletes refs/nudge/published/<id>/data, /card and the pins of the code it builds on (/base/…) on
the remote in one atomic push, only if they are still what nudge saw. An id that names both your
session here (published as a fork under another id) and a publication of that id is refused
with both commands to choose from. Your local session is not touched. The server keeps the objects until
its own garbage collection; a clone that fetched or pulled it keeps its copy.

Examples:
  $ nudge session unpublish 3f2a
  $ nudge session unpublish 7c01d2e9aa --remote sessions --force`,
  )
  .action(async (id: string, raw: unknown) => {
    const o = parseOptions(Options, raw);
    const store = await commandStore(process.cwd());
    const remote = await resolveRemote(store, o.remote);
    const r = await unpublishSession(store, remote, id, { force: o.force ?? false, dryRun: o.dryRun ?? false });
    if (o.json) return printJson(r);
    writeOut(
      `${r.dryRun ? "would remove" : "removed"} published session ${r.id} from ${visible(r.remote)}${r.mine ? "" : " (not published from here)"}\n`,
    );
  });
