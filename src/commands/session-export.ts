import { commandStore } from "./command-store.js";
import { Command } from "commander";
import { resolveRecorded } from "./session-source.js";
import { createReadStream } from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import * as z from "../base/zod.js";
import { UserError } from "../base/errors.js";
import { beginWork } from "../store/cut-off-work.js";
import { defaultExportName, exportSession, type ExportResult } from "../sharing/export-session.js";
import { excludeExport } from "../sharing/export-exclude.js";
import { describeCarried, describeExported } from "../sharing/export-describe.js";
import { shellQuote } from "../base/shell-quote.js";
import { printJson, writeOut, writeErr } from "../terminal/output.js";
import { checkExportTarget, isFolder, refuseSpecialFile, shown } from "./export-target.js";
import { exportHtmlAction } from "./session-export-html.js";
import { noteExportedImages } from "./export-images-note.js";
import { parseOptions, parseTurnArg } from "./parse-options.js";

const Options = z.object({
  output: z.optional(z.string().check(z.minLength(1))),
  upto: z.optional(z.string()),
  redact: z.boolean(),
  allowSecretsInCode: z.optional(z.boolean()),
  force: z.optional(z.boolean()),
  json: z.optional(z.boolean()),
  html: z.optional(z.boolean()),
});

export const sessionExportCommand = new Command("export")
  .description("write a session to one .tar.gz that any clone of the repository can import")
  .argument("<id>", "session id or unique prefix")
  .option(
    "-o, --output <file>",
    "where to write it: a file, a folder for nudge-<id>.tar.gz (default: here), or - for stdout",
  )
  .option("--upto <turn>", "export turns 0..N only (leave out later turns, e.g. one that leaked something)")
  .option("--no-redact", "keep secrets found in the conversation and transcripts verbatim (they are masked by default)")
  .option("--allow-secrets-in-code", "export even if the code changes hold a secret (code is never masked)")
  .option("--force", "replace the file -o names if it exists (without a terminal it is refused otherwise)")
  .option("--json", "machine-readable output")
  .option(
    "--html",
    "write the session's web page instead: one self-contained .html file to open in any browser, masked the same way",
  )
  .addHelpText(
    "after",
    `
The archive holds the session (manifest, conversation, timing, per-turn patches), claude's
transcripts with their subagent and tool-result files, and the snapshot commits as a git bundle
that carries only what the remote-tracking branches lack (an unpushed base commit travels too).
Secrets (API keys, tokens, private keys, connection strings, *_KEY=/PASSWORD= assignments) are
masked in the exported copy, never in your recording. The same session exports to the same bytes.

--html writes nudge-<id>.html instead: the session as \`nudge web\` shows it (every turn, its tool
calls and diffs), with an in-page search, readable from file:// with no network. Masked and
refused exactly as the archive is.

Examples:
  $ nudge session export 3f2a
  $ nudge session export 3f2a --upto 4 -o ~/share/fix-flaky-test.tar.gz
  $ nudge session export 3f2a --json | jq .masked
  $ nudge session export 3f2a --html -o ~/share/`,
  )
  .action(async (id: string, raw: unknown) => {
    const o = parseOptions(Options, raw);
    if (o.html) return exportHtmlAction(id, o);
    const toStdout = o.output === "-";
    if (toStdout && o.json)
      throw new UserError(
        "-o - writes the archive to stdout, where --json would go too",
        "give -o a file or a folder to have --json",
      );
    if (toStdout && process.stdout.isTTY)
      throw new UserError(
        "-o - would write a binary archive to the terminal; nothing was written",
        "redirect it: nudge session export <id> -o - > session.tar.gz",
      );
    const store = await commandStore(process.cwd());
    const session = await resolveRecorded(store, id, "export");
    // -o may name a folder: the file goes in it under its default name. -o -: a private temp file, then stdout.
    // In the store's work folder, so a killed export leaves nothing that gc does not clear.
    const work = toStdout ? await beginWork(store, "stdout", "an export to stdout") : null;
    const scratch = work?.dir ?? null;
    const given = path.resolve(scratch ?? o.output ?? ".");
    const out =
      o.output === undefined || scratch || (await isFolder(given))
        ? path.join(given, defaultExportName(session.manifest.id))
        : given;
    await refuseSpecialFile(out);
    if (!scratch) await checkExportTarget(o.output, out, o.force ?? false);
    let result: ExportResult;
    let excludedIn: string | null = null;
    try {
      result = await exportSession(store, session, {
        out,
        upto: o.upto === undefined ? null : parseTurnArg(o.upto, "--upto"),
        redact: o.redact,
        allowSecretsInCode: o.allowSecretsInCode ?? false,
        progress: (line) => writeErr(`● ${line}\n`),
      });
      if (scratch) await pipeline(createReadStream(out), process.stdout, { end: false });
      else excludedIn = await excludeExport(store.repoRoot, out);
    } finally {
      await work?.finish();
    }
    const carried = describeCarried(result, session.manifest);
    await noteExportedImages(session.dir, session.manifest.turns, result.index.session.upto);
    if (o.json) {
      return printJson({
        path: result.path,
        excludedIn,
        bytes: result.bytes,
        id: session.manifest.id,
        turns: result.turns,
        upto: result.index.session.upto,
        masked: result.masked,
        keptSecrets: result.kept,
        codeSecrets: result.codeSecrets,
        carried,
        prerequisites: result.index.git?.prerequisites ?? [],
        leftOut: result.leftOut,
      });
    }
    // With -o -, stdout is the archive: what is said goes to stderr.
    const say = (line: string) => (toStdout ? writeErr : writeOut)(line + "\n");
    describeExported(result, carried, {
      to: toStdout ? "stdout" : shown(result.path),
      excludedIn: excludedIn && shown(excludedIn),
      importName: toStdout ? "<the file you saved it to>" : shellQuote(shown(result.path)),
    }).forEach(say);
  });
