import { commandStore } from "./command-store.js";
import { Command } from "commander";
import * as z from "../base/zod.js";
import { UserError } from "../base/errors.js";
import { parseSince, searchSessions } from "../search/search-sessions.js";
import { hitViews } from "../search/hit-view.js";
import { snippetOf } from "../search/snippet.js";
import { PLACE_NAMES } from "../search/places.js";
import { printJson, writeErr, writeOut } from "../terminal/output.js";
import { colorEnabled, makeStyle } from "../terminal/style.js";
import { parseOptions } from "./parse-options.js";
import { thousands } from "../base/format.js";
import { imageSize } from "../live/prompt-images.js";
import { sessionFilter } from "../live/session-id.js";

const Options = z.object({
  file: z.optional(z.string().check(z.minLength(1), z.maxLength(4096))),
  tool: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  since: z.optional(z.string()),
  session: z.optional(z.string()),
  limit: z.optional(z.string().check(z.regex(/^[1-9]\d{0,3}$/, "a whole number from 1 to 9999"))),
  newest: z.optional(z.boolean()),
  json: z.optional(z.boolean()),
  allProjects: z.optional(z.boolean()),
});

export const sessionSearchCommand = new Command("search")
  .description(
    "search every session of this repository: prompts, Claude's text, tool inputs and outputs, your edits, file names",
  )
  .argument("[query...]", 'words (all must match), "a phrase", prefix*; may be left out with --file')
  .option("--file <path|glob>", "only turns that changed this file (alone: every turn that changed it, newest first)")
  .option("--tool <name>", "only tool inputs and outputs of this tool (Bash, Edit, Read, ...)")
  .option("--since <date>", "only turns ended since: 2026-05-01, 2026-05-01T12:00, or 3d / 12h / 30m ago")
  .option("--session <id>", "only this session (id or unique prefix, nudge's or claude's own)")
  .option("--limit <n>", "at most this many matches (default 20)")
  .option("--newest", "newest turn first: the order anyway (kept for scripts)")
  .option("--all-projects", "claude's own sessions of every project on this machine too (not only this repository's)")
  .option("--json", "machine-readable output, secrets masked as an export masks them")
  .addHelpText(
    "after",
    `
claude's own sessions of this repository (run without nudge) are searched too; they are indexed in
the background, and until that is done a search says how many are left. So is the first index of
many recorded sessions: a search meanwhile answers from the part indexed, and says how far it is.

Exit status: 0 matches found, 1 none (or a bad option), 2 a bug.

Examples:
  $ nudge session search auth timeout
  $ nudge session search '"connection refused"' --tool Bash
  $ nudge session search 'retry*' --since 7d
  $ nudge session search --file src/auth.ts          # which turns changed it; then: nudge session diff <id> <turn>
  $ nudge session search 認証 --json | jq '.[0]'`,
  )
  .action(async (words: string[], raw: unknown) => {
    const o = parseOptions(Options, raw);
    const query = words.join(" ");
    if (query.trim() === "" && !o.file)
      throw new UserError("nothing to search for", "give words to search for, or --file <path>");
    // Found without a git process (~5-9 ms of a search) where git's answer is plain to read from .git.
    const store = await commandStore(process.cwd());
    const limit = o.limit === undefined ? 20 : Number(o.limit);
    const only = o.session === undefined ? null : await sessionFilter(store, o.session);
    const found = await searchSessions(store, {
      claude: o.allProjects || only?.elsewhere ? "all" : "repository",
      query,
      file: o.file ?? null,
      tool: o.tool ?? null,
      since: o.since === undefined ? null : parseSince(o.since),
      session: only ? (only.nudge ?? only.claude) : null,
      newest: o.newest ?? false,
      limit,
      // --json masks secrets in the whole text; the terminal shows a snippet, unmasked.
      snippetOnly: !o.json,
      onLongCatchUp: (n) => writeErr(`indexing ${n} sessions for search (once; later searches read only new turns)…\n`),
    });
    const { catchUp, claudeLeft, hits } = found;
    for (const s of catchUp.skipped) writeErr(`! skipped session ${s.id}: ${s.why}\n`);
    if (catchUp.left > 0) {
      const done = catchUp.total - catchUp.left;
      writeErr(
        `indexing ${thousands(done)} of ${thousands(catchUp.total)} sessions (${Math.floor((100 * done) / catchUp.total)}%) in the background — results so far are from the indexed part\n`,
      );
    }
    if (claudeLeft.sessions > 0)
      writeErr(
        `${thousands(claudeLeft.sessions)} of claude's own sessions (${imageSize(claudeLeft.bytes)}) not indexed yet: they are being indexed in the background; these results are from what is indexed\n`,
      );
    process.exitCode = hits.length > 0 ? 0 : 1;
    if (o.json) return printJson(await hitViews(hits));
    if (hits.length === 0) return void writeErr("no matches\n");
    const style = makeStyle(colorEnabled(process.stdout));
    for (const h of hits) {
      const where = PLACE_NAMES[h.place] + (h.tool ? ` (${h.tool})` : "");
      writeOut(`${style.bold(h.session)}  turn ${h.turn}  ${h.at.slice(0, 16).replace("T", " ")}  ${where}\n`);
      // Claude's text and the prompts are markdown: shown as it reads, not as it is typed.
      const s = snippetOf(h.text, h.matches, {
        plain: h.place === "text" || h.place === "prompt",
        json: h.place === "tool-input",
      });
      let line = "";
      let at = 0;
      for (const [a, b] of s.matches) {
        const match = s.text.slice(a, b);
        line += s.text.slice(at, a) + (style.enabled ? style.yellow(style.bold(match)) : `[${match}]`);
        at = b;
      }
      writeOut(`  ${line + s.text.slice(at)}\n`);
    }
  });
