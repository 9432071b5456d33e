import { commandStore } from "./command-store.js";
import { Command } from "commander";
import * as z from "../base/zod.js";
import { fetchPublished } from "../sync/fetch-published.js";
import { resolveRemote } from "../sync/sync-remote.js";
import { visible } from "../base/inert-text.js";
import { printJson, writeOut, writeErr } from "../terminal/output.js";
import { parseOptions } from "./parse-options.js";

const Options = z.object({
  remote: z.optional(z.string().check(z.minLength(1))),
  json: z.optional(z.boolean()),
});

export const sessionFetchCommand = new Command("fetch")
  .description(
    "bring the list of a remote's published sessions here (their cards only; content comes with pull or show)",
  )
  .option(
    "--remote <name|url>",
    "from where (default: git config nudge.remote, else the branch's upstream remote, else origin)",
  )
  .option("--json", "machine-readable output")
  .addHelpText(
    "after",
    `
Only each published session's card (author, branch, turns, prompts: a few hundred bytes) is
fetched, into nudge's own repository in the store: your repository's objects, refs, HEAD, index
and branches are not touched, and nothing is imported.

Examples:
  $ nudge session fetch
  $ nudge session fetch --remote sessions && nudge session list --remote sessions`,
  )
  .action(async (raw: unknown) => {
    const o = parseOptions(Options, raw);
    const store = await commandStore(process.cwd());
    const remote = await resolveRemote(store, o.remote);
    const r = await fetchPublished(store, remote);
    if (o.json)
      return printJson({
        remote: r.remote,
        sessions: r.cards.length,
        added: r.added,
        updated: r.updated,
        removed: r.removed,
        ignored: r.ignored,
      });
    for (const bad of r.cards.filter((c) => c.problem))
      writeErr(`! published session ${visible(bad.id)} is unreadable: ${visible(bad.problem!)}\n`);
    if (r.ignored)
      writeErr(
        `! ${r.ignored} ref${r.ignored === 1 ? "" : "s"} under refs/nudge/published/ ${r.ignored === 1 ? "is" : "are"} not named as nudge names a publication (10 hex characters): ignored\n`,
      );
    const n = r.cards.length;
    writeOut(
      `${visible(r.remote)} has ${n} published session${n === 1 ? "" : "s"} (${r.added.length} new, ${r.updated.length} updated, ${r.removed.length} gone since the last fetch)\n`,
    );
    if (n) writeOut("list them: nudge session list --remote\n");
  });
