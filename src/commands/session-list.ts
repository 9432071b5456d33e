import { commandStore } from "./command-store.js";
import { Command } from "commander";
import * as z from "../base/zod.js";
import { summarize } from "../store/summary.js";
import { scanSessions, type Store } from "../store/store.js";
import { remoteListing } from "../sync/remote-listing.js";
import { resolveRemote } from "../sync/sync-remote.js";
import { formatCost, formatDuration, oneLine, thousands } from "../base/format.js";
import { printJson, printTable, writeOut, writeErr } from "../terminal/output.js";
import { parseOptions } from "./parse-options.js";
import { UserError } from "../base/errors.js";
import { inertValue, visible } from "../base/inert-text.js";
import { claudeOwnScan, idsShowResolves } from "../live/claude-own-sessions.js";
import { earlyFolderStats } from "../live/claude-folder-stats.js";
import { claudeConfigDir } from "../claude/transcript.js";
import { listProjects, printClaudeOwn, projectsPlace } from "./claude-own-list.js";

const Options = z.object({
  json: z.optional(z.boolean()),
  all: z.optional(z.boolean()),
  limit: z.optional(z.coerce.number().check(z.int(), z.positive())),
  remote: z.optional(z.union([z.boolean(), z.string().check(z.minLength(1))])),
  allProjects: z.optional(z.boolean()),
});

/** Rows the table shows unless told otherwise: a screenful, the newest (JSON is for scripts: every row). */
export const SCREEN_ROWS = 20;

export const sessionListCommand = new Command("list")
  .alias("ls")
  .description("list this repository's recorded sessions, newest first")
  .option("--all", `every session (the table shows the newest ${SCREEN_ROWS} unless --all or --limit)`)
  .option("--limit <n>", "only the newest n sessions")
  .option(
    "--remote [name|url]",
    "the sessions published on a remote, as last fetched (nudge session fetch), instead of this repository's",
  )
  .option("--all-projects", "every project claude has sessions for on this machine: its sessions, last activity, cost")
  .option("--json", "machine-readable output (every session unless --limit)")
  .addHelpText(
    "after",
    `\nThe table shows the newest ${SCREEN_ROWS} sessions and says how many more there are; --json lists every one.\n\nExamples:\n  $ nudge session list\n  $ nudge session list --all\n  $ nudge session list --limit 5\n  $ nudge session list --json | jq '.[0].id'\n  $ nudge session fetch && nudge session list --remote\n  $ nudge session list --all-projects\n\nclaude's own sessions of this repository (run without nudge, in any of its work trees or folders) are listed after the recorded ones, marked "claude" (--json: "source": "claude"); show, replay and search read them, adopt makes one a nudge session.`,
  )
  .action(async (raw: unknown) => {
    const options = parseOptions(Options, raw);
    // Contradictory, as --all-projects with --remote: neither silently wins over the other.
    if (options.all && options.limit !== undefined)
      throw new UserError(
        `--all lists every session, --limit ${options.limit} only the newest ${options.limit}: give one of them`,
        `nudge session list --all, or: nudge session list --limit ${options.limit}`,
      );
    // Every project on the machine: from anywhere, a repository or not.
    if (options.allProjects) {
      if (options.remote !== undefined)
        throw new UserError(
          "--all-projects lists claude's projects on this machine, --remote a remote's published sessions: give one of them",
          "nudge session list --all-projects, or: nudge session list --remote",
        );
      const limit = options.limit ?? (options.all || options.json ? undefined : SCREEN_ROWS);
      return listProjects(await projectsPlace(process.cwd()), { json: options.json, limit });
    }
    const opening = commandStore(process.cwd());
    // claude's transcripts are stat'ed while git says where the repository is (git runs meanwhile).
    const early = options.remote === undefined ? earlyFolderStats(claudeConfigDir(), process.cwd()) : undefined;
    const store = await opening;
    if (options.remote !== undefined)
      return listRemote(store, options.remote === true ? undefined : (options.remote as string), options);
    const limit = options.limit ?? (options.all || options.json ? undefined : SCREEN_ROWS);
    const [scan, claude] = await Promise.all([
      scanSessions(store, { limit, onSkip: (dir, why) => writeErr(`! skipped ${dir}: ${why}\n`) }),
      claudeOwnScan(store, { limit, early }),
    ]);
    const rows = scan.sessions.map(summarize);
    if (options.json) return printJson([...rows.map((r) => ({ source: "nudge", ...r })), ...claude.sessions]);
    // Prompts, branches and origins come from bundles (an import among them): shown, never obeyed.
    const shown = rows.map((r) => inertValue(r));
    if (rows.length === 0 && claude.total === 0)
      return void writeOut("no sessions yet; start one with: nudge claude run\n");
    if (rows.length > 0) printRecorded(shown, scan.total);
    if (claude.total > 0)
      printClaudeOwn(store, claude.sessions, claude.total, rows.length > 0, await idsShowResolves(store));
  });

function printRecorded(shown: Array<ReturnType<typeof summarize>>, total: number): void {
  const rows = shown;
  // Imported sessions say whose they are: a column of its own, only when there is one.
  const imported = shown.some((r) => r.origin);
  printTable(
    [
      "ID",
      "STARTED",
      "BRANCH",
      "TURNS",
      "COST",
      "TIME",
      "STATE",
      "FIRST PROMPT",
      "LAST PROMPT",
      "FORK OF",
      ...(imported ? ["IMPORTED FROM"] : []),
    ],
    shown.map((r) => [
      r.id,
      r.startedAt.slice(0, 16).replace("T", " "),
      r.branch ?? "(detached)",
      String(r.turns),
      formatCost(r.costUsd),
      formatDuration(r.durationMs),
      [r.state, ...(r.repairedAt ? ["repaired"] : []), ...(r.sharedWith.length ? ["shared work tree"] : [])].join(", "),
      oneLine(r.firstPrompt ?? "", 30),
      oneLine(r.lastPrompt ?? "", 30),
      r.parent ? `${r.parent.id}@${r.parent.turn}` : "",
      ...(imported ? [r.origin ? oneLine(r.origin.exportedBy ?? "(unknown)", 30) : ""] : []),
    ]),
  );
  const left = total - rows.length;
  if (left > 0)
    writeOut(
      `${thousands(left)} older session${left === 1 ? "" : "s"} not shown (${rows.length} of ${thousands(total)}); every one: nudge session list --all\n`,
    );
}

async function listRemote(
  store: Store,
  given: string | undefined,
  options: { json?: boolean; all?: boolean; limit?: number },
): Promise<void> {
  const remote = await resolveRemote(store, given);
  const all = await remoteListing(store, remote);
  const limit = options.limit ?? (options.all || options.json ? undefined : SCREEN_ROWS);
  const rows = limit === undefined ? all : all.slice(0, limit);
  if (options.json)
    return printJson(
      rows.map((r) => ({ id: r.id, here: r.here, local: r.local, problem: r.problem, ...(r.card ?? {}) })),
    );
  if (all.length === 0)
    return void writeOut(
      `no published sessions from ${visible(remote.label)} known here; fetch them: nudge session fetch${given ? ` --remote ${given}` : ""}\n`,
    );
  // Everything on a card comes from someone else's remote: shown, never obeyed.
  printTable(
    ["ID", "AUTHOR", "BRANCH", "TURNS", "LAST TURN", "FIRST PROMPT", "LAST PROMPT", "FORK OF", "HERE"],
    rows.map((r) => {
      const c = r.card ? inertValue(r.card) : null;
      // Why it is unreadable goes last, where its length widens no other column (QA: AUTHOR grew with it).
      if (!c)
        return [
          visible(r.id),
          "(unreadable)",
          "",
          "",
          "",
          "",
          "",
          "",
          `(unreadable: ${oneLine(visible(r.problem ?? ""), 120)})`,
        ];
      return [
        c.id,
        oneLine(c.author ?? "(unknown)", 30),
        oneLine(c.branch ?? "(detached)", 30),
        String(c.turns),
        c.lastTurnAt.slice(0, 16).replace("T", " "),
        oneLine(c.firstPrompt ?? "", 30),
        oneLine(c.lastPrompt ?? "", 30),
        c.forkOf ? `${c.forkOf.id}@${c.forkOf.turn}` : "",
        r.local && r.here !== "yours" ? `${r.here} (${r.local})` : r.here,
      ];
    }),
  );
  const left = all.length - rows.length;
  if (left > 0)
    writeOut(
      `${thousands(left)} more not shown (${rows.length} of ${thousands(all.length)}); every one: nudge session list --remote --all\n`,
    );
}
