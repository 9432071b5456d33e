import { commandStore } from "./command-store.js";
import { Command } from "commander";
import * as z from "../base/zod.js";
import { runClaudeIndexer } from "../search/claude-indexer.js";
import { parseOptions } from "./parse-options.js";

const Options = z.object({ allProjects: z.optional(z.boolean()) });

/** Not for people: the background process `session search` starts to build the index (recorded sessions, then claude's own). */
export const sessionIndexClaudeCommand = new Command("index-claude")
  .description("index sessions for search, recorded and claude's own (session search starts this in the background)")
  .option("--all-projects", "every project's, not only this repository's")
  .addHelpText(
    "after",
    "\nNot meant to be run by hand: `nudge session search` starts it.\n\nExamples:\n  $ nudge session index-claude\n  $ nudge session index-claude --all-projects",
  )
  .action(async (raw: unknown) => {
    const options = parseOptions(Options, raw);
    await runClaudeIndexer(await commandStore(process.cwd()), options.allProjects ?? false);
  });
