import { Command } from "commander";
import * as z from "../zod.js";
import { summarize } from "../bundle/summary.js";
import { openStore, scanSessions } from "../bundle/store.js";
import { formatCost, formatDuration, oneLine, thousands } from "../terminal/format.js";
import { printJson, printTable, writeOut, writeErr } from "../terminal/output.js";
import { parseOptions } from "./parse-options.js";
import { inertValue } from "../inert-text.js";

const Options = z.object({
  json: z.optional(z.boolean()),
  all: z.optional(z.boolean()),
  limit: z.optional(z.coerce.number().check(z.int(), z.positive())),
});

/** Rows the table shows unless told otherwise: a screenful, the newest (JSON is for scripts: every row). */
export const SCREEN_ROWS = 20;

export const sessionListCommand = new Command("list")
  .alias("ls")
  .description("list this repository's recorded sessions, newest first")
  .option("--all", `every session (the table shows the newest ${SCREEN_ROWS} unless --all or --limit)`)
  .option("--limit <n>", "only the newest n sessions")
  .option("--json", "machine-readable output (every session unless --limit)")
  .addHelpText(
    "after",
    `\nThe table shows the newest ${SCREEN_ROWS} sessions and says how many more there are; --json lists every one.\n\nExamples:\n  $ nudge session list\n  $ nudge session list --all\n  $ nudge session list --limit 5\n  $ nudge session list --json | jq '.[0].id'`,
  )
  .action(async (raw: unknown) => {
    const options = parseOptions(Options, raw);
    const store = await openStore(process.cwd());
    const limit = options.limit ?? (options.all || options.json ? undefined : SCREEN_ROWS);
    const scan = await scanSessions(store, { limit, onSkip: (dir, why) => writeErr(`! skipped ${dir}: ${why}\n`) });
    const rows = scan.sessions.map(summarize);
    if (options.json) return printJson(rows);
    // Prompts, branches and origins come from bundles (an import among them): shown, never obeyed.
    const shown = rows.map((r) => inertValue(r));
    if (rows.length === 0) return void writeOut("no sessions yet; start one with: nudge claude run\n");
    // Imported sessions say whose they are: a column of its own, only when there is one.
    const imported = shown.some((r) => r.origin);
    printTable(
      ["ID", "STARTED", "BRANCH", "TURNS", "COST", "TIME", "STATE", "FIRST PROMPT", "LAST PROMPT", "FORK OF", ...(imported ? ["IMPORTED FROM"] : [])],
      shown.map((r) => [
        r.id,
        r.startedAt.slice(0, 16).replace("T", " "),
        r.branch ?? "(detached)",
        String(r.turns),
        formatCost(r.costUsd),
        formatDuration(r.durationMs),
        r.repairedAt ? `${r.state}, repaired` : r.state,
        oneLine(r.firstPrompt ?? "", 30),
        oneLine(r.lastPrompt ?? "", 30),
        r.parent ? `${r.parent.id}@${r.parent.turn}` : "",
        ...(imported ? [r.origin ? oneLine(r.origin.exportedBy ?? "(unknown)", 30) : ""] : []),
      ]),
    );
    const left = scan.total - rows.length;
    if (left > 0) writeOut(`${thousands(left)} older session${left === 1 ? "" : "s"} not shown (${rows.length} of ${thousands(scan.total)}); every one: nudge session list --all\n`);
  });
