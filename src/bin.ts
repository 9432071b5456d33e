#!/usr/bin/env node
/**
 * The `nudge` bin. Most of a command's start-up is V8 compiling the bundle's modules; node's
 * compile cache keeps that work for the next start. It must be on before those modules load, so
 * the CLI is imported only after it.
 */
import module from "node:module";

// Node ≥ 22.1 has it (older: a plain start). The cache lives where node puts it by default,
// os.tmpdir()/node-compile-cache, or NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
await import("./cli.js");
