/**
 * `nudge session export`: one session as one .tar.gz a teammate imports into any clone of the
 * repository, the same bytes each time but for the time it was written. Planned from the
 * manifest (export-plan.ts), then made in a private staging folder: the code changes checked for
 * secrets, the logs and claude's files cut and masked (export-logs.ts), the snapshot commits
 * bundled thin against the remote-tracking branches (export-commits.ts, git.ts), and everything
 * written with its sha256 (export-writer.ts). The local recording is only read; the staging
 * folder is removed whatever happens.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { MANIFEST_FORMAT, type ManifestHeader, type Turn } from "../store/manifest-schema.js";
import { headerOf, type Store, type StoredSession } from "../store/store.js";
import { refuseLinksWithin } from "../store/bundle-links.js";
import { streamSize } from "../store/conversation-pieces.js";
import { summaryOf } from "../store/summary.js";
import { journalOf, parseJournal, foldJournal } from "../store/turn-journal.js";
import { claudeConfigDir, encodeProjectDir, findTranscript } from "../claude/transcript.js";
import * as git from "../snapshot/git.js";
import { requireTree } from "../snapshot/snapshotter.js";
import { scanCarried } from "./carried-secrets.js";
import { carriedOf, codeSecretError } from "./code-secret-error.js";
import { scanCode, type CodeSecret } from "./code-secrets.js";
import { exportCommits } from "./export-commits.js";
import { EXPORT_FORMAT, EXPORT_KIND, type ExportIndex } from "./export-index.js";
import { SESSION_DIR } from "./archive-path.js";
import { secretsOf, stageLogs } from "./export-logs.js";
import { BUNDLE_TIP, planExport } from "./export-plan.js";
import { maskMetadata } from "./export-metadata.js";
import { writeExport, type ExportFile } from "./export-writer.js";
import { beginWork } from "../store/cut-off-work.js";
import { faultPoint } from "../base/fault-injection.js";
import { summarizeFindings, type SecretFinding } from "../secrets/secrets.js";
import { nudgeVersion } from "../base/version.js";
import { claudeSessionIdOf } from "../store/transcript-name.js";

export interface ExportOptions {
  out: string;
  upto: number | null;
  redact: boolean;
  allowSecretsInCode: boolean;
  env?: NodeJS.ProcessEnv;
  /** Phases of a large export, for stderr. */
  progress?: (line: string) => void;
  /** What the user asked for, as refusals name it: "export" (session export) or "publish" (session push). */
  verb?: "export" | "publish";
}

export interface ExportResult {
  path: string;
  bytes: number;
  index: ExportIndex;
  /** Turns after the starting state. */
  turns: number;
  /** Secrets masked in this copy (empty with --no-redact). */
  masked: ExportIndex["masked"];
  /** With --no-redact: the secrets found and kept as they were. */
  kept: ExportIndex["masked"];
  /** With --allow-secrets-in-code: what the code changes hold. */
  codeSecrets: CodeSecret[];
  /** Snapshot commits copied with a masked message. */
  commitsCopied: number;
  /** Unsaved turns of a live or crashed recording, left out. */
  leftOut: number;
  /** Side files left out because their names cannot travel. */
  skipped: string[];
}

const BUNDLE_ENTRY = "git/session.bundle";
/** Above this much conversation and transcript, each phase is reported on stderr. */
const LARGE_BYTES = 8 * 1024 * 1024;

export function defaultExportName(id: string): string {
  return `nudge-${id}.tar.gz`;
}

export async function exportSession(store: Store, session: StoredSession, o: ExportOptions): Promise<ExportResult> {
  const manifest = session.manifest;
  // Whole folders are copied below (claude's files): a link anywhere would carry its target out.
  await refuseLinksWithin(session.dir);
  const plan = planExport(manifest, o.upto);
  const root = store.repoRoot;
  // Every earlier snapshot is an ancestor of this one: present with it (git gc keeps what a ref reaches).
  await requireTree(root, plan.turns.at(-1)!.snapshot.tree, `the snapshot of turn ${plan.turns.at(-1)!.n}`);
  const large = (await streamSize(session.dir)) + (await sizeOf(path.join(session.dir, "claude"))) > LARGE_BYTES;
  const progress = (line: string) => (large ? o.progress?.(line) : undefined);

  progress("checking the code changes for secrets…");
  const code = await scanCode(root, plan.tip, manifest.repo.baseCommit, plan.turns);
  // The base and the HEADs recorded travel with the history they need when no remote has them: all of it is scanned too.
  const carriedSecrets = await scanCarried(
    root,
    plan.reach.map((r) => r.commit),
    code.scanned,
  );
  const codeSecrets = [...code.secrets, ...carriedSecrets];
  if (codeSecrets.length && !o.allowSecretsInCode)
    throw codeSecretError(codeSecrets, await carriedOf(root, plan.reach), o.verb);

  // Staged in the store's work folder, with the archive's temp file journalled: a killed export
  // leaves nothing in /tmp or beside -o that the next export or `nudge session gc` does not clear.
  const work = await beginWork(store, "export", `an export of session ${manifest.id} to ${o.out}`);
  const stage = work.dir;
  try {
    progress(
      o.redact
        ? "masking secrets in the conversation and claude's transcripts…"
        : "scanning the conversation and claude's transcripts…",
    );
    const logs = await stageLogs(session.dir, plan, stage, o.redact);
    progress("bundling the snapshot commits…");
    const commits = await exportCommits(root, plan.tip, manifest.repo.baseCommit, logs.turns, o.redact);
    const bundleFile = path.join(stage, "session.bundle");
    const bundle = await git.createBundle(
      root,
      bundleFile,
      [{ ref: BUNDLE_TIP, commit: commits.tip }],
      plan.reach.map(({ ref, commit }) => ({ ref, commit })),
      work.dir,
    );

    const journal = await stageJournal(stage, commits.turns, o.redact);
    const turns = journal.turns;
    const recorded: ManifestHeader = {
      ...headerOf(manifest),
      format: MANIFEST_FORMAT,
      updatedAt: plan.exportedAt,
      state: "complete",
      resume: plan.resume,
      rewoundTo: plan.rewoundTo,
      origin: null,
      summary: summaryOf(turns),
    };
    const exportedFrom = {
      at: plan.exportedAt,
      writtenAt: writtenAt(o.env ?? process.env),
      by: await git.userIdentity(root),
      repoRoot: manifest.repo.root,
      cwd: manifest.repo.cwd,
      claudeProjectDir: await projectDir(o.env ?? process.env, manifest.repo.cwd, plan.transcripts[0]?.claudeSessionId),
    };
    // The branch, the folders, who exported it: text, not code, so masked like the conversation.
    const meta = await maskMetadata(recorded, exportedFrom, `${SESSION_DIR}/manifest.json`, o.redact);
    const manifestFile = path.join(stage, SESSION_DIR, "manifest.json");
    await fs.writeFile(manifestFile, JSON.stringify(meta.header, null, 2) + "\n", { flag: "wx" });

    const findings = [
      ...logs.findings,
      ...journal.findings,
      ...meta.findings,
      ...commits.found.map((m): SecretFinding => ({
        kind: m.kind,
        file: BUNDLE_ENTRY,
        line: 0,
        start: 0,
        end: 0,
        ...(m.turn === null ? {} : { turn: m.turn }),
      })),
    ];
    const summary = summarizeFindings(findings);
    const files: ExportFile[] = [
      ...logs.files,
      { path: `${SESSION_DIR}/turns.jsonl`, source: { file: journal.file } },
      { path: `${SESSION_DIR}/manifest.json`, source: { file: manifestFile } },
      ...plan.patches.map((p) => ({
        path: `${SESSION_DIR}/${p.file}`,
        source: { file: path.join(session.dir, p.file) },
      })),
      { path: BUNDLE_ENTRY, source: { file: bundleFile } },
    ];
    const index: Omit<ExportIndex, "entries"> = {
      kind: EXPORT_KIND,
      format: EXPORT_FORMAT,
      nudgeVersion: nudgeVersion(),
      exported: meta.exported,
      session: {
        id: manifest.id,
        turns: turns.filter((t) => t.n > 0).length,
        upto: plan.upto,
        claudeSessionIds: [...new Set(turns.flatMap((t) => (t.transcript ? [claudeSessionIdOf(t.transcript)] : [])))],
      },
      git: {
        bundle: BUNDLE_ENTRY,
        objectFormat: await git.objectFormat(root),
        prerequisites: bundle.prerequisiteRemotes,
        carried: bundle.carried.map((c) => c.commit),
        // What an import into another project's repository is told apart by (see import-code.ts).
        rootCommits: manifest.repo.baseCommit ? await git.rootCommits(root, manifest.repo.baseCommit, 16) : [],
      },
      masked: o.redact ? summary : [],
    };
    progress("writing the archive…");
    faultPoint("export-staged");
    const written = await writeExport(o.out, { top: `nudge-${manifest.id}`, index, files }, (temp) =>
      work.will({ kind: "made", path: temp }),
    );
    return {
      path: o.out,
      bytes: written.bytes,
      index: written.index,
      turns: index.session.turns,
      masked: index.masked,
      kept: o.redact ? [] : summary,
      codeSecrets,
      commitsCopied: commits.copied,
      leftOut: plan.leftOut,
      skipped: logs.skipped,
    };
  } finally {
    await work.finish();
  }
}

/** turns.jsonl afresh (one `turn` record per turn), masked like the logs: prompts and check output may hold secrets. */
async function stageJournal(
  stage: string,
  turns: Turn[],
  redact: boolean,
): Promise<{ file: string; turns: Turn[]; findings: SecretFinding[] }> {
  const raw = path.join(stage, "raw", "turns.jsonl");
  const file = path.join(stage, SESSION_DIR, "turns.jsonl");
  await fs.writeFile(
    raw,
    journalOf(turns)
      .map((r) => JSON.stringify(r) + "\n")
      .join(""),
    { flag: "wx" },
  );
  const options = { file: `${SESSION_DIR}/turns.jsonl`, turnOfLine: (line: number) => turns[line - 1]?.n };
  const findings = await secretsOf(raw, file, options, redact);
  return { file, turns: foldJournal(parseJournal(await fs.readFile(file, "utf8"), file)).turns, findings };
}

/**
 * When the export is written: the clock, so an importer reads when it was shared. The same session
 * exported twice then differs in this field alone; $SOURCE_DATE_EPOCH (seconds, the
 * reproducible-builds convention) pins it for byte-identical archives.
 */
function writtenAt(env: NodeJS.ProcessEnv): string {
  const pinned = env.SOURCE_DATE_EPOCH;
  return /^\d{1,11}$/.test(pinned ?? "") ? new Date(Number(pinned) * 1000).toISOString() : new Date().toISOString();
}

/** Where claude kept this session's files on this machine: paths under it are rewritten on import. */
async function projectDir(env: NodeJS.ProcessEnv, cwd: string, claudeSessionId: string | undefined): Promise<string> {
  const config = claudeConfigDir(env);
  const found = claudeSessionId ? await findTranscript(config, cwd, claudeSessionId) : null;
  return found ? path.dirname(found) : path.join(config, "projects", encodeProjectDir(cwd));
}

async function sizeOf(target: string): Promise<number> {
  const stat = await fs.stat(target).catch(() => null);
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.size;
  let total = 0;
  for (const e of await fs.readdir(target)) total += await sizeOf(path.join(target, e));
  return total;
}
