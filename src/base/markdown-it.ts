/**
 * markdown-it, required the first time a caller parses (~50 ms to load): commands that parse no
 * markdown never pay for it. Each caller keeps its own instance, with its own options.
 */
import { createRequire } from "node:module";

type MarkdownItCtor = typeof import("markdown-it").default;
export type MarkdownIt = InstanceType<MarkdownItCtor>;
export type MarkdownToken = ReturnType<MarkdownIt["parse"]>[number];
type MarkdownOptions = Partial<MarkdownIt["options"]>;

const require = createRequire(import.meta.url);

/** A getter for one markdown-it made with `options` (then `setup`) on first use. */
export function lazyMarkdownIt(options: MarkdownOptions, setup?: (md: MarkdownIt) => void): () => MarkdownIt {
  let md: MarkdownIt | null = null;
  return () => {
    if (md === null) {
      md = new (require("markdown-it") as MarkdownItCtor)(options);
      setup?.(md);
    }
    return md;
  };
}
