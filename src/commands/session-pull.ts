import { commandStore } from "./command-store.js";
import { Command } from "commander";
import * as z from "../base/zod.js";
import { parseSize } from "../sharing/limits.js";
import { pullSession } from "../sync/pull-session.js";
import { resolveRemote } from "../sync/sync-remote.js";
import { printJson, writeOut, writeErr } from "../terminal/output.js";
import { parseOptions } from "./parse-options.js";
import { describe } from "./session-import.js";

const Options = z.object({
  remote: z.optional(z.string().check(z.minLength(1))),
  force: z.optional(z.boolean()),
  dryRun: z.optional(z.boolean()),
  json: z.optional(z.boolean()),
  maxSize: z.optional(
    z.pipe(
      z.string().check(z.refine((s) => parseSize(s) !== null, "a size such as 2GiB, 800MiB or 1500000000 (bytes)")),
      z.transform((s) => parseSize(s)!),
    ),
  ),
});

export const sessionPullCommand = new Command("pull")
  .description("install a published session from a git remote, exactly as `session import` installs an export")
  .argument("<id>", "the published session's id (or a unique prefix among those fetched)")
  .option(
    "--remote <name|url>",
    "from where (default: git config nudge.remote, else the branch's upstream remote, else origin)",
  )
  .option("--force", "replace a different session under the same id (set aside first)")
  .option("--dry-run", "fetch and check everything, print what would be installed; install nothing")
  .option("--max-size <size>", "the most the export may unpack to (as for session import)")
  .option("--json", "machine-readable output")
  .addHelpText(
    "after",
    `
The published export is fetched into nudge's own repository in the store, then imported by
\`session import\` itself: every check it runs on a tarball (names, sizes, sha256s, the manifest
and journal, the git bundle, every patch against its tree, the repository it belongs to), and a
refusal installs nothing. Continue it with nudge claude run -r <id>; a push of it afterwards is
published as a fork of theirs.

Examples:
  $ nudge session fetch && nudge session list --remote
  $ nudge session pull 3f2a9c01de
  $ nudge session rewind 3f2a9c01de 4 --yes && nudge claude run -r 3f2a9c01de`,
  )
  .action(async (id: string, raw: unknown) => {
    const o = parseOptions(Options, raw);
    const store = await commandStore(process.cwd());
    const remote = await resolveRemote(store, o.remote);
    const r = await pullSession(store, remote, id, {
      force: o.force ?? false,
      dryRun: o.dryRun ?? false,
      maxBytes: o.maxSize,
      progress: (line) => writeErr(`● ${line}\n`),
    });
    if (o.json) return printJson({ published: r.id, remote: r.remote, ...r.import });
    describe(r.import, `published session ${r.id}`).forEach((line) => writeOut(line + "\n"));
  });
