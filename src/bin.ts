#!/usr/bin/env node
/**
 * The `nudge` bin. Most of a command's start-up is V8 compiling the bundle's modules; node's
 * compile cache keeps that work for the next start. It must be on before those modules load, so
 * the CLI is imported only after it.
 */
import module from "node:module";
import path from "node:path";
import { userCacheDir } from "./base/user-cache.js";

// Node ≥ 22.1 has it (older: a plain start). Kept where the user's caches go, not in the shared temp
// folder: no other user can put compiled code in it, it outlives a reboot, and a command leaves
// nothing in the temp folder. NODE_COMPILE_CACHE names another folder, NODE_DISABLE_COMPILE_CACHE=1
// turns it off; a folder that cannot be made leaves it off, silently.
(module as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache?.(
  path.join(userCacheDir(), "compile-cache"),
);
// The command line claude's hooks run, before every prompt and tool: the hook's code alone (hook-cli.ts).
const [group, command, ...more] = process.argv.slice(2);
if (group === "hooks" && command === "claude-event" && more.length === 0) await import("./hook-cli.js");
else await import("./cli.js");
