import { commandStore } from "./command-store.js";
import { Command } from "commander";
import * as z from "../base/zod.js";
import { printJson, printTable, writeOut } from "../terminal/output.js";
import { listBackups } from "../maintenance/backup-list.js";
import { parseOptions } from "./parse-options.js";

const Options = z.object({ json: z.optional(z.boolean()) });

const when = (iso: string) => iso.slice(0, 19).replace("T", " ");

export const sessionBackupsCommand = new Command("backups")
  .description("list what `nudge session rewind --undo` can go back to, newest first (like git reflog)")
  .option("--json", "machine-readable output")
  .addHelpText(
    "after",
    `
Each rewind (and fork put in place) saves the state from before it under a backup ref first.
The one marked * is what \`nudge session rewind --undo\` restores; an undone rewind is no longer one.
Files from any backup can be copied back with git: git restore --source=<ref> -- <path>

Examples:
  $ nudge session backups
  $ nudge session backups --json | jq '.entries[] | select(.undo)'`,
  )
  .action(async (raw: unknown) => {
    const o = parseOptions(Options, raw);
    const store = await commandStore(process.cwd());
    const listing = await listBackups(store);
    if (o.json) return printJson(listing);
    const say = (line: string): void => void writeOut(line + "\n");
    if (listing.entries.length === 0 && listing.others.length === 0)
      return say("no backups: no rewind has been made in this repository");
    if (listing.entries.length > 0) {
      printTable(
        ["", "WHEN (UTC)", "SESSION", "TURN", "WHAT", "STATUS", "FILES", "BACKUP"],
        listing.entries.map((e) => [
          e.undo ? "*" : "",
          when(e.at),
          e.sessionId,
          String(e.turn),
          e.fork
            ? `fork (${e.fork})`
            : e.forking
              ? "fork (none made)"
              : e.kind === "rewind"
                ? e.scope === "both"
                  ? "rewind"
                  : `rewind (${e.scope})`
                : e.kind,
          e.status,
          e.filesChanged === null ? "–" : String(e.filesChanged),
          e.exists ? e.ref : `${e.ref} (gone)`,
        ]),
      );
      const target = listing.entries.find((e) => e.undo);
      // One cut off halfway comes first: nothing else may be done until it is settled.
      const cut = listing.entries.find((e) => e.status === "started");
      say(
        cut
          ? `one was interrupted halfway (${cut.at}): nudge session rewind --continue finishes it, --abort puts everything back`
          : target
            ? `* nudge session rewind --undo puts back the files from before this ${target.forking ? "fork" : "rewind"}`
            : `nothing to undo: every ${listing.entries.some((e) => e.forking) ? "rewind and fork" : "rewind"} listed was undone or failed`,
      );
    }
    if (listing.others.length > 0) {
      say("");
      say("other backups (--undo does not restore these; copy files back with: git restore --source=<ref> -- <path>):");
      for (const b of listing.others) say(`  ${when(b.at)}  ${b.ref}`);
    }
  });
