import { commandStore } from "./command-store.js";
import { Command } from "commander";
import os from "node:os";
import path from "node:path";
import * as z from "../base/zod.js";
import { importSession, type ImportResult } from "../sharing/import-session.js";
import { parseSize } from "../sharing/limits.js";
import { shellQuote } from "../base/shell-quote.js";
import { printJson, writeOut, writeErr } from "../terminal/output.js";
import { parseOptions } from "./parse-options.js";

const Options = z.object({
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

export const sessionImportCommand = new Command("import")
  .description("import a session exported with `nudge session export` into this clone")
  .argument("<file>", "the .tar.gz to import")
  .option("--force", "replace a different session under the same id (it is set aside first, and the output says where)")
  .option("--dry-run", "check everything and print what would be installed; write nothing")
  .option("--json", "machine-readable output")
  .option(
    "--max-size <size>",
    "the most the export may unpack to, per file and in total (default 256MiB a file, 512MiB in all, and at most 50 times the archive's size past 64MiB)",
  )
  .addHelpText(
    "after",
    `
Everything is checked before anything is written: the archive (names, types, sizes, every
sha256), the session's manifest and journal, the git bundle, and every patch applied onto the
base commit must reproduce the tree its turn recorded. A bad file is refused with one line and
leaves nothing behind.

The session goes into this repository's store with its hidden refs; claude's transcripts go
under $CLAUDE_CONFIG_DIR/projects/<this clone's folder>/ with their paths moved here, so
\`nudge claude run -r <id>\` resumes the conversation. Your work tree, HEAD, index and branches
are not touched: rewind or fork the session to put its code in place.

Examples:
  $ nudge session import nudge-3f2a9c01de.tar.gz
  $ nudge session import ~/Downloads/fix-flaky-test.tar.gz --dry-run
  $ nudge session rewind 3f2a9c01de 4 --dry-run   # then look at its code`,
  )
  .action(async (file: string, raw: unknown) => {
    const o = parseOptions(Options, raw);
    const store = await commandStore(process.cwd());
    const result = await importSession(store, path.resolve(file), {
      force: o.force ?? false,
      dryRun: o.dryRun ?? false,
      maxBytes: o.maxSize,
      progress: (line) => writeErr(`● ${line}\n`),
    });
    if (o.json) return printJson(result);
    describe(result, path.basename(file)).forEach((line) => writeOut(line + "\n"));
  });

export function describe(r: ImportResult, file: string): string[] {
  const lines: string[] = [];
  const turns = `${r.turns} turn${r.turns === 1 ? "" : "s"}`;
  if (r.status === "already") {
    lines.push(
      `${file} is already imported, as session ${r.id}${r.continuedBy ? ` (continued here since: ${r.continuedBy} more turn${r.continuedBy === 1 ? "" : "s"})` : ""}; nothing to do`,
    );
    lines.push(`continue it: nudge claude run -r ${shellQuote(r.id)}`);
    return lines;
  }
  const verb = r.status === "dry-run" ? "would import" : "imported";
  lines.push(`${verb} session ${r.id} from ${file} (${turns})`);
  if (r.idChange === "fresh")
    lines.push(
      `  a different session ${r.sourceId} is already here: ${r.status === "dry-run" ? "it would get" : "it got"} the fresh id ${r.id} (--force replaces the one that is here)`,
    );
  if (r.idChange === "replaced")
    lines.push(
      `  replaces the session ${r.id} that was here${r.setAside ? `, now kept in ${home(r.setAside.backupDir)} (refs under refs/nudge/import-backups/)` : ", which would be set aside first"}`,
    );
  // An export of an older nudge does not say when it was written: nothing is said rather than the session's time.
  lines.push(
    `  exported by ${r.origin.exportedBy ?? "(unknown)"} from ${r.origin.root}${r.origin.writtenAt ? ` on ${r.origin.writtenAt}` : ""}`,
  );
  lines.push(`  bundle: ${home(r.dir)}`);
  lines.push(
    `  code: ${r.refs[0]}${r.carried.length ? ` (the export carried ${r.carried.length} commit${r.carried.length === 1 ? "" : "s"} this clone may lack: ${r.carried.map((c) => c.slice(0, 10)).join(", ")})` : ""}`,
  );
  const files = r.claudeFiles;
  if (files.length) {
    const folder = path.dirname(
      files.find((f) => !f.path.includes(`${path.sep}subagents${path.sep}`) && f.path.endsWith(".jsonl"))?.path ??
        files[0]!.path,
    );
    const same = files.filter((f) => f.state === "same").length;
    const longer = files.filter((f) => f.state === "longer").length;
    const holds = files.filter((f) => f.state === "holds").length;
    const extended = files.filter((f) => f.state === "extends").length;
    const beside = files.filter(
      (f) => f.state === "beside" && f.path.endsWith(".jsonl") && path.dirname(f.path) === folder,
    );
    const notes = [
      ...(same ? [`${same} already there`] : []),
      ...(longer
        ? [`${longer} already there and continued since: kept, the session resumes from its own last turn in a fork`]
        : []),
      ...(holds
        ? [
            `${holds} already there in another version (the original of a masked export?): kept as they are, the session resumes from its own last turn in a fork`,
          ]
        : []),
      ...(extended ? [`${extended} already there in part (an earlier part of this conversation): now whole`] : []),
      ...(beside.length
        ? [
            `another version of this conversation is already there, continued apart: both kept, this one as claude session ${beside.map((f) => path.basename(f.path, ".jsonl")).join(", ")}`,
          ]
        : []),
    ];
    lines.push(
      `  claude: ${files.length} file${files.length === 1 ? "" : "s"} in ${home(folder)}${notes.length ? ` (${notes.join("; ")})` : ""}`,
    );
  }
  for (const moved of r.setAside?.claudeFiles ?? [])
    lines.push(`  set aside claude's ${home(moved)} into ${home(r.setAside!.backupDir)}`);
  // The code first: a run started on this clone's own tree would record it as edits undoing the session's work.
  if (r.status === "imported")
    lines.push(
      `put its code in place: nudge session rewind ${shellQuote(r.id)} ${r.turns} · then continue it: nudge claude run -r ${shellQuote(r.id)}`,
    );
  return lines;
}

function home(p: string): string {
  const h = os.homedir();
  return p === h || p.startsWith(`${h}${path.sep}`) ? `~${p.slice(h.length)}` : p;
}
