/**
 * zod as nudge uses it: zod/mini (its functions tree-shake, so a command bundles only the parts it
 * uses, where classic zod's methods cost every command ~45 ms of start-up) with English error
 * messages (mini ships none: without this every issue reads "Invalid input").
 *
 * Import it as a namespace, `import * as z from "./zod.js"`, which keeps it tree-shakeable.
 */
import { config } from "zod/mini";
// The English locale's own module: mini's `locales` namespace would bundle all of zod's ~60 languages.
import en from "zod/v4/locales/en.js";

config(en());

export * from "zod/mini";
