/**
 * zod as nudge uses it: zod/mini (its functions tree-shake, so a command bundles only the parts it
 * uses, where classic zod's methods cost every command ~45 ms of start-up) with English error
 * messages (mini ships none: without this every issue reads "Invalid input").
 *
 * Import it as a namespace, `import * as z from "../zod.js"`, which keeps it tree-shakeable.
 */
import { config, locales } from "zod/mini";

config(locales.en());

export * from "zod/mini";
