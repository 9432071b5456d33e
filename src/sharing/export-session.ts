/**
 * `nudge session export`: one session as one deterministic .tar.gz a teammate imports into any
 * clone of the repository. Planned from the manifest (export-plan.ts), then made in a private
 * staging folder: the code changes checked for secrets, the logs and claude's files cut and
 * masked (export-logs.ts), the snapshot commits bundled thin against the remote-tracking
 * branches (export-commits.ts, git.ts), and everything written with its sha256 (export-writer.ts).
 * The local recording is only read; the staging folder is removed whatever happens.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { UserError } from "../errors.js";
import { MANIFEST_FORMAT, type ManifestHeader, type Turn } from "../bundle/manifest-schema.js";
import { headerOf, type Store, type StoredSession } from "../bundle/store.js";
import { summaryOf } from "../bundle/summary.js";
import { journalOf, parseJournal, foldJournal } from "../bundle/turn-journal.js";
import { claudeConfigDir, encodeProjectDir, findTranscript } from "../claude/transcript.js";
import * as git from "../snapshot/git.js";
import { requireTree } from "../snapshot/snapshotter.js";
import { EXPORT_IN_CODE, scanCode, type CodeSecret } from "./code-secrets.js";
import { exportCommits } from "./export-commits.js";
import { EXPORT_FORMAT, EXPORT_KIND, type ExportIndex } from "./export-index.js";
import { SESSION_DIR, secretsOf, stageLogs } from "./export-logs.js";
import { BUNDLE_TIP, planExport } from "./export-plan.js";
import { writeExport, type ExportFile } from "./export-writer.js";
import { beginWork } from "../bundle/cut-off-work.js";
import { faultPoint } from "../fault-injection.js";
import { summarizeFindings, type SecretFinding } from "./secrets.js";
import { nudgeVersion } from "../version.js";
import { claudeSessionIdOf } from "../bundle/transcript-name.js";

export interface ExportOptions {
  out: string;
  upto: number | null;
  redact: boolean;
  allowSecretsInCode: boolean;
  env?: NodeJS.ProcessEnv;
  /** Phases of a large export, for stderr. */
  progress?: (line: string) => void;
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

export const BUNDLE_ENTRY = "git/session.bundle";
/** Above this much conversation and transcript, each phase is reported on stderr. */
const LARGE_BYTES = 8 * 1024 * 1024;

export function defaultExportName(id: string): string {
  return `nudge-${id}.tar.gz`;
}

export async function exportSession(store: Store, session: StoredSession, o: ExportOptions): Promise<ExportResult> {
  const manifest = session.manifest;
  const plan = planExport(manifest, o.upto);
  const root = store.repoRoot;
  // Every earlier snapshot is an ancestor of this one: present with it (git gc keeps what a ref reaches).
  await requireTree(root, plan.turns.at(-1)!.snapshot.tree, `the snapshot of turn ${plan.turns.at(-1)!.n}`);
  const large = (await sizeOf(path.join(session.dir, "conversation.jsonl"))) + (await sizeOf(path.join(session.dir, "claude"))) > LARGE_BYTES;
  const progress = (line: string) => (large ? o.progress?.(line) : undefined);

  progress("checking the code changes for secrets…");
  const codeSecrets = await scanCode(root, plan.tip, manifest.repo.baseCommit, plan.turns);
  if (codeSecrets.length && !o.allowSecretsInCode) throw codeSecretError(codeSecrets);

  // Staged in the store's work folder, with the archive's temp file journalled: a killed export
  // leaves nothing in /tmp or beside -o that the next export or `nudge session gc` does not clear.
  const work = await beginWork(store, "export", `an export of session ${manifest.id} to ${o.out}`);
  const stage = work.dir;
  try {
    progress(o.redact ? "masking secrets in the conversation and claude's transcripts…" : "scanning the conversation and claude's transcripts…");
    const logs = await stageLogs(session.dir, plan, stage, o.redact);
    progress("bundling the snapshot commits…");
    const commits = await exportCommits(root, plan.tip, manifest.repo.baseCommit, logs.turns, o.redact);
    const bundleFile = path.join(stage, "session.bundle");
    const bundle = await git.createBundle(root, bundleFile, [{ ref: BUNDLE_TIP, commit: commits.tip }], plan.reach.map(({ ref, commit }) => ({ ref, commit })), work.dir);

    const journal = await stageJournal(stage, commits.turns, o.redact);
    const turns = journal.turns;
    const header: ManifestHeader = {
      ...headerOf(manifest),
      format: MANIFEST_FORMAT,
      updatedAt: plan.exportedAt,
      state: "complete",
      resume: plan.resume,
      rewoundTo: plan.rewoundTo,
      origin: null,
      summary: summaryOf(turns),
    };
    const manifestFile = path.join(stage, SESSION_DIR, "manifest.json");
    await fs.writeFile(manifestFile, JSON.stringify(header, null, 2) + "\n", { flag: "wx" });

    const findings = [...logs.findings, ...journal.findings, ...commits.found.map((m): SecretFinding => ({ kind: m.kind, file: BUNDLE_ENTRY, line: 0, start: 0, end: 0, ...(m.turn === null ? {} : { turn: m.turn }) }))];
    const summary = summarizeFindings(findings);
    const files: ExportFile[] = [
      ...logs.files,
      { path: `${SESSION_DIR}/turns.jsonl`, source: { file: journal.file } },
      { path: `${SESSION_DIR}/manifest.json`, source: { file: manifestFile } },
      ...plan.patches.map((p) => ({ path: `${SESSION_DIR}/${p.file}`, source: { file: path.join(session.dir, p.file) } })),
      { path: BUNDLE_ENTRY, source: { file: bundleFile } },
    ];
    const index: Omit<ExportIndex, "entries"> = {
      kind: EXPORT_KIND,
      format: EXPORT_FORMAT,
      nudgeVersion: nudgeVersion(),
      exported: {
        at: plan.exportedAt,
        by: await git.userIdentity(root),
        repoRoot: manifest.repo.root,
        cwd: manifest.repo.cwd,
        claudeProjectDir: await projectDir(o.env ?? process.env, manifest.repo.cwd, plan.transcripts[0]?.claudeSessionId),
      },
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
      },
      masked: o.redact ? summary : [],
    };
    progress("writing the archive…");
    faultPoint("export-staged");
    const written = await writeExport(o.out, { top: `nudge-${manifest.id}`, index, files }, (temp) => work.will({ kind: "made", path: temp }));
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
async function stageJournal(stage: string, turns: Turn[], redact: boolean): Promise<{ file: string; turns: Turn[]; findings: SecretFinding[] }> {
  const raw = path.join(stage, "raw", "turns.jsonl");
  const file = path.join(stage, SESSION_DIR, "turns.jsonl");
  await fs.writeFile(raw, journalOf(turns).map((r) => JSON.stringify(r) + "\n").join(""), { flag: "wx" });
  const options = { file: `${SESSION_DIR}/turns.jsonl`, turnOfLine: (line: number) => turns[line - 1]?.n };
  const findings = await secretsOf(raw, file, options, redact);
  return { file, turns: foldJournal(parseJournal(await fs.readFile(file, "utf8"), file)).turns, findings };
}

/** The refusal of an export whose code changes hold a secret (the tarball and the HTML page give the same). */
export function codeSecretError(secrets: CodeSecret[]): UserError {
  const first = secrets.find((s) => s.kind === EXPORT_IN_CODE) ?? secrets[0]!;
  if (first.kind === EXPORT_IN_CODE) {
    return new UserError(
      `an export of a session is in the code changes: ${first.path} in turn ${first.turn}; it would travel inside this one, with whatever it holds`,
      `${first.turn > 0 ? `export the turns before it (--upto ${first.turn - 1}), or ` : ""}pass --allow-secrets-in-code to export the code as it is`,
    );
  }
  const more = secrets.length > 1 ? ` (and ${secrets.length - 1} more: ${secrets.slice(1, 4).map((s) => `${s.path} in turn ${s.turn}`).join(", ")}${secrets.length > 4 ? ", …" : ""})` : "";
  const earlier = Math.min(...secrets.map((s) => s.turn)) - 1;
  return new UserError(
    `a secret (${first.kind}) is in the code changes: ${first.path} in turn ${first.turn}${more}; code cannot be masked`,
    `${earlier >= 0 ? `export the turns before it (--upto ${earlier}), or ` : ""}pass --allow-secrets-in-code to export the code as it is`,
  );
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
