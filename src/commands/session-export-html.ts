/** `nudge session export <id> --html`: where the page goes and what is said; export-html.ts makes it. */
import { commandStore } from "./command-store.js";
import path from "node:path";
import { writeFileAtomic } from "../store/atomic-write.js";
import { resolveSession } from "../store/store.js";
import { UserError } from "../base/errors.js";
import { exportHtml } from "../web/export-html.js";
import { noteExportedImages } from "./export-images-note.js";
import { excludeExport } from "../sharing/export-exclude.js";
import { formatBytes } from "../sharing/limits.js";
import { printJson, writeErr, writeOut } from "../terminal/output.js";
import { describeSecrets } from "../sharing/export-describe.js";
import { checkExportTarget, isFolder, refuseSpecialFile, shown } from "./export-target.js";
import { parseTurnArg } from "./parse-options.js";

export interface HtmlExportFlags {
  output?: string;
  upto?: string;
  redact: boolean;
  allowSecretsInCode?: boolean;
  force?: boolean;
  json?: boolean;
}

export async function exportHtmlAction(id: string, o: HtmlExportFlags): Promise<void> {
  const toStdout = o.output === "-";
  if (toStdout && o.json)
    throw new UserError(
      "-o - writes the page to stdout, where --json would go too",
      "give -o a file or a folder to have --json",
    );
  const store = await commandStore(process.cwd());
  const session = await resolveSession(store, id);
  const given = path.resolve(o.output ?? ".");
  const out = toStdout
    ? null
    : o.output === undefined || (await isFolder(given))
      ? path.join(given, `nudge-${session.manifest.id}.html`)
      : given;
  if (out) {
    await refuseSpecialFile(out);
    await checkExportTarget(o.output, out, o.force ?? false);
  }
  const result = await exportHtml(store, session, {
    upto: o.upto === undefined ? null : parseTurnArg(o.upto, "--upto"),
    redact: o.redact,
    allowSecretsInCode: o.allowSecretsInCode ?? false,
  });
  await noteExportedImages(session.dir, session.manifest.turns, result.upto);
  let excludedIn: string | null = null;
  const bytes = Buffer.byteLength(result.html);
  if (out) {
    // Readable by you only, like the archive: it holds the conversation.
    await writeFileAtomic(out, result.html, 0o600);
    excludedIn = await excludeExport(store.repoRoot, out);
  } else {
    writeOut(result.html);
  }
  if (o.json) {
    return printJson({
      path: out,
      excludedIn,
      bytes,
      id: session.manifest.id,
      turns: result.turns,
      upto: result.upto,
      masked: result.masked,
      keptSecrets: result.kept,
      codeSecrets: result.codeSecrets,
      leftOut: result.leftOut,
    });
  }
  const say = (line: string) => (toStdout ? writeErr : writeOut)(line + "\n");
  say(
    `exported session ${session.manifest.id} → ${out ? shown(out) : "stdout"} (${formatBytes(bytes)}, ${result.turns} turn${result.turns === 1 ? "" : "s"}${result.upto === null ? "" : `, up to turn ${result.upto}`}): one page, opens with no network`,
  );
  say(`  masked: ${result.masked.length ? describeSecrets(result.masked) : "no secrets found"}`);
  if (result.kept.length) say(`  kept verbatim (--no-redact): ${describeSecrets(result.kept)}`);
  for (const s of result.codeSecrets)
    say(`  secret in the code, exported as it is (--allow-secrets-in-code): ${s.kind} in ${s.path}, turn ${s.turn}`);
  if (result.leftOut)
    say(
      `  left out: ${result.leftOut} turn${result.leftOut === 1 ? "" : "s"} not saved yet (the session is being recorded or crashed)`,
    );
  if (excludedIn)
    say(`  kept out of your next turns: it is inside the work tree, so ${shown(excludedIn)} now names it`);
}
