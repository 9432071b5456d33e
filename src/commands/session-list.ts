import { Command } from "commander";
import * as z from "../zod.js";
import { summarize } from "../bundle/summary.js";
import { listSessions, openStore } from "../bundle/store.js";
import { formatCost, formatDuration, oneLine } from "../terminal/format.js";
import { printJson, printTable, writeOut, writeErr } from "../terminal/output.js";
import { parseOptions } from "./parse-options.js";
import { inertValue } from "../inert-text.js";

const Options = z.object({ json: z.optional(z.boolean()) });

export const sessionListCommand = new Command("list")
  .alias("ls")
  .description("list this repository's recorded sessions, newest first")
  .option("--json", "machine-readable output")
  .addHelpText("after", "\nExamples:\n  $ nudge session list\n  $ nudge session list --json | jq '.[0].id'")
  .action(async (raw: unknown) => {
    const options = parseOptions(Options, raw);
    const store = await openStore(process.cwd());
    const sessions = await listSessions(store, (dir, why) => writeErr(`! skipped ${dir}: ${why}\n`));
    const rows = sessions.map(summarize);
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
  });
