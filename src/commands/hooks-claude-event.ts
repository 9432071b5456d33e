/**
 * What the hooks `nudge hooks install --claude` writes run (hook-process.ts does the work). bin.ts
 * runs the plain `nudge hooks claude-event` without this command tree; the command is here for
 * `--finish` (the detached end of a turn), --help, and the command list.
 */
import { Command } from "commander";
import * as z from "../base/zod.js";
import { runFinish, runHook } from "./hook-process.js";
import { parseOptions } from "./parse-options.js";

const Options = z.object({
  finish: z.optional(z.string().check(z.regex(/^[A-Za-z0-9_-]{1,100}$/))),
  end: z.optional(z.boolean()),
  claudePid: z.optional(z.string().check(z.regex(/^\d{1,9}$/))),
});

export const hooksClaudeEventCommand = new Command("claude-event")
  .description("what the hooks of `nudge hooks install --claude` run (claude gives the hook's JSON on stdin)")
  .option("--finish <session>", "end the turn a Stop hook noted (run detached by that hook)")
  .option("--end", "with --finish: claude ended; close the session")
  .option("--claude-pid <pid>", "with --finish: the claude whose hook started it")
  .addHelpText(
    "after",
    '\nNot meant to be run by hand.\n\nExamples:\n  $ echo \'{"hook_event_name":"Stop","session_id":"…","cwd":"/repo"}\' | nudge hooks claude-event',
  )
  .action(async (raw: unknown) => {
    const o = parseOptions(Options, raw);
    if (o.finish) await runFinish(o.finish, o.end ?? false, Number(o.claudePid ?? 0));
    else await runHook();
  });
