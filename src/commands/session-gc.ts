import { Command } from "commander";
import * as z from "../base/zod.js";
import { openStore } from "../store/store.js";
import { gcOperation } from "../maintenance/housekeeping-operation.js";
import { runHousekeeping } from "./housekeeping-run.js";
import { parseOptions } from "./parse-options.js";

const UNIT_MS = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 } as const;

const Options = z.object({
  olderThan: z.pipe(
    z.string().check(z.regex(/^\d+[hdw]$/, "an age such as 30d, 12h or 2w")),
    z.transform((age) => Number(age.slice(0, -1)) * UNIT_MS[age.slice(-1) as keyof typeof UNIT_MS]),
  ),
  dryRun: z.optional(z.boolean()),
  yes: z.optional(z.boolean()),
  json: z.optional(z.boolean()),
});

export const sessionGcCommand = new Command("gc")
  .description("remove sessions not used for a while, old rewind backups, and what nudge left behind")
  .option("--older-than <age>", "sessions unused, and rewind backups made, longer ago than this (h, d or w)", "30d")
  .option("--dry-run", "print what would be removed and change nothing")
  .option("-y, --yes", "do not ask for confirmation")
  .option("--json", "print the plan and the result as JSON")
  .addHelpText(
    "after",
    `
Removed: sessions whose last use is older than the age (as \`nudge session rm\` removes them),
rewind records and backup refs older than it, and leftovers of cut-off runs (private indexes of
sessions not recording, shared index files no index uses, session folders that never got a
manifest, scratch folders, stale locks and temp files, work folders of killed
imports, exports and forks into a worktree, whose steps are undone first), and in nudge's
own sync repository (<store>/remote.git) the contents of publications fetched to be pulled or
shown (fetched again when needed) and every object no ref reaches (git gc --prune=now there,
while no sync runs); what you published or pulled and the fetched cards stay.
Never removed: a session being recorded or whose claude still runs, and the backup
\`nudge session rewind --undo\` restores (with its session).
The snapshots' git objects are reclaimed by git gc, which nudge never runs in your repository.

Examples:
  $ nudge session gc --dry-run
  $ nudge session gc --older-than 2w --yes`,
  )
  .action(async (raw: unknown) => {
    const o = parseOptions(Options, raw);
    const store = await openStore(process.cwd());
    await runHousekeeping(gcOperation(store, { olderThanMs: o.olderThan }), o);
  });
