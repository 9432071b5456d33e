/**
 * The entry of `nudge hooks claude-event` as claude's hooks run it (bin.ts picks it for exactly
 * that command line): claude waits on it before every prompt and tool, so it loads the hook's code
 * alone, not commander and the command tree. Exit 0 whatever happens (hook-process.ts).
 */
import { runHook } from "./commands/hook-process.js";

// claude gone before the answer: nothing to tell it, and no stack trace for a pipe it closed.
for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined);
await runHook();
