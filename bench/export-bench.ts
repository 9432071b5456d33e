/**
 * Export and import of a long session, time and size, against `git bundle create` of the same
 * commits (what carrying the code alone costs). Self-contained:
 *
 *   npm run build && node --import tsx bench/export-bench.ts [turns] [files]
 *
 * The session is made by driving the real recorder in-process (SessionRecorder: private-index
 * snapshots, patches, the journal, transcript sync) with a synthetic claude stream, a synthetic
 * claude transcript that grows each turn (with a subagent and a large tool result in its side
 * folder), and a real change to the work tree per turn (an edit, a new file, and a 64 KiB binary
 * every 25th turn) in a clone of an origin holding `files` files. One prompt in 50 carries an
 * API token, so masking has work to do. Export and import then run as the commands run them.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, promises as fs, realpathSync, statSync, writeFileSync, appendFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { openStore, loadSession } from "../src/store/store.js";
import { encodeProjectDir } from "../src/claude/transcript.js";
import { SessionRecorder } from "../src/recorder/session-recorder.js";
import { createSession, privateIndexFile } from "../src/live/open-session.js";
import { ownPathExcludes } from "../src/snapshot/own-paths.js";
import { sessionRef } from "../src/snapshot/snapshotter.js";
import { exportSession } from "../src/sharing/export-session.js";
import { importSession } from "../src/sharing/import-session.js";

const run = promisify(execFile);
const git = (cwd: string, ...args: string[]) => run("git", args, { cwd, maxBuffer: 1 << 30 });

export interface ExportBenchRow {
  turns: number;
  files: number;
  /** Recording the synthetic session (not part of the comparison; for scale). */
  recordSeconds: number;
  exportSeconds: number;
  exportBytes: number;
  importSeconds: number;
  gitBundleSeconds: number;
  gitBundleBytes: number;
  /** What the session's own files hold (conversation, transcripts, patches, journal). */
  bundleFolderBytes: number;
}

export async function exportBench(turns = 200, files = 1000): Promise<ExportBenchRow> {
  const top = realpathSync(mkdtempSync(path.join(os.tmpdir(), "nudge-bench-export-")));
  try {
    const { a, b } = await repositories(top, files);
    const cfgA = path.join(top, "cfg-a");
    const started = process.hrtime.bigint();
    const id = await record(a, cfgA, turns);
    const recordSeconds = seconds(started);

    const store = await openStore(a, {});
    const session = await loadSession(store, id);
    const out = path.join(top, `nudge-${id}.tar.gz`);
    let t = process.hrtime.bigint();
    const exported = await exportSession(store, session, {
      out,
      upto: null,
      redact: true,
      allowSecretsInCode: true,
      env: { CLAUDE_CONFIG_DIR: cfgA },
    });
    const exportSeconds = seconds(t);

    t = process.hrtime.bigint();
    const imported = await importSession(await openStore(b, {}), out, {
      force: false,
      dryRun: false,
      env: { CLAUDE_CONFIG_DIR: path.join(top, "cfg-b") },
    });
    const importSeconds = seconds(t);
    if (imported.status !== "imported" || imported.turns !== turns)
      throw new Error(`import went wrong: ${JSON.stringify(imported)}`);

    // The reference: the same commits, thin against the same remote-tracking branches.
    const reference = path.join(top, "reference.bundle");
    t = process.hrtime.bigint();
    await git(a, "bundle", "create", "--quiet", reference, sessionRef(id), "--not", "--remotes");
    const gitBundleSeconds = seconds(t);

    return {
      turns,
      files,
      recordSeconds,
      exportSeconds,
      exportBytes: exported.bytes,
      importSeconds,
      gitBundleSeconds,
      gitBundleBytes: statSync(reference).size,
      bundleFolderBytes: await sizeOf(session.dir),
    };
  } finally {
    await fs.rm(top, { recursive: true, force: true });
  }
}

/** An origin with `files` small files; the exporter's clone a, the importer's clone b. */
export async function repositories(top: string, files: number): Promise<{ a: string; b: string }> {
  const seed = path.join(top, "seed");
  mkdirSync(seed);
  await git(seed, "init", "-q", "-b", "main");
  for (let i = 0; i < files; i++) {
    const folder = path.join(seed, "src", `d${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, `f${i}.ts`), `export const v${i} = ${i};\n// ${"x".repeat(i % 200)}\n`);
  }
  await git(seed, "add", "-A");
  await git(seed, "-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "generated");
  await git(top, "clone", "-q", "--bare", seed, "origin.git");
  const clones: string[] = [];
  for (const name of ["ana app", "bob app"]) {
    await git(top, "clone", "-q", "origin.git", name);
    const dir = path.join(top, name);
    for (const [k, v] of [
      ["user.name", "bench"],
      ["user.email", "bench@example.com"],
      ["gc.auto", "0"],
      ["commit.gpgSign", "false"],
    ])
      await git(dir, "config", k!, v!);
    clones.push(dir);
  }
  return { a: clones[0]!, b: clones[1]! };
}

/** A `turns`-turn session recorded by the real recorder from a synthetic stream. */
export async function record(repo: string, configDir: string, turns: number): Promise<string> {
  const store = await openStore(repo, { CLAUDE_CONFIG_DIR: configDir });
  const opened = await createSession(store, repo);
  const recorder = await SessionRecorder.start(opened.dir, opened.manifest, {
    claudeConfigDir: configDir,
    cwd: repo,
    exclude: ownPathExcludes(repo, store.ownDirs),
    indexFile: privateIndexFile(store, opened.manifest.id),
    untrackedCache: false,
  });
  const sid = "5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f";
  const project = path.join(configDir, "projects", encodeProjectDir(repo));
  const transcript = path.join(project, `${sid}.jsonl`);
  mkdirSync(path.join(project, sid, "subagents"), { recursive: true });
  mkdirSync(path.join(project, sid, "tool-results"), { recursive: true });
  const line = (o: object) => JSON.stringify(o) + "\n";
  const output = "test output line\n".repeat(240); // ~4 KiB of tool result per turn
  for (let n = 1; n <= turns; n++) {
    writeFileSync(path.join(repo, "src", "d0", "f0.ts"), `export const v0 = ${n};\n`);
    writeFileSync(path.join(repo, `turn-${n}.ts`), `export const t = ${n};\n`.repeat(20));
    if (n % 25 === 0) writeFileSync(path.join(repo, `asset-${n}.bin`), Buffer.alloc(64 * 1024, n));
    const prompt =
      n % 50 === 0 ? `deploy with API_TOKEN=f3a9c1d27b8e4f60${n}a1b2 please` : `turn ${n}: make the change`;
    const handle = recorder.beginTurn(prompt);
    const uuid = (k: number) => `00000000-0000-4000-8000-${String(n * 10 + k).padStart(12, "0")}`;
    const records = [
      { type: "user", cwd: repo, sessionId: sid, uuid: uuid(1), message: { role: "user", content: prompt } },
      {
        type: "assistant",
        cwd: repo,
        sessionId: sid,
        uuid: uuid(2),
        message: {
          role: "assistant",
          content: [{ type: "tool_use", id: `toolu_${n}`, name: "Bash", input: { command: "npm test", cwd: repo } }],
        },
      },
      {
        type: "user",
        cwd: repo,
        sessionId: sid,
        uuid: uuid(3),
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${n}`, content: output }] },
      },
      {
        type: "assistant",
        cwd: repo,
        sessionId: sid,
        uuid: uuid(4),
        message: { role: "assistant", content: [{ type: "text", text: `Done with turn ${n}.` }] },
      },
    ];
    appendFileSync(transcript, records.map(line).join(""));
    if (n === 10)
      writeFileSync(
        path.join(project, sid, "subagents", "agent-a1b2c3.jsonl"),
        line({ type: "user", cwd: repo, message: { role: "user", content: "survey" } }).repeat(50),
      );
    if (n === 30) writeFileSync(path.join(project, sid, "tool-results", `toolu_${n}.txt`), output.repeat(10));
    const stream = [
      {
        type: "system",
        subtype: "init",
        session_id: sid,
        cwd: repo,
        model: "claude-bench",
        claude_code_version: "2.1.329",
      },
      { type: "user", message: { role: "user", content: prompt }, session_id: sid, uuid: uuid(1), isReplay: true },
      { type: "assistant", message: records[1]!.message, session_id: sid, uuid: uuid(2), parent_tool_use_id: null },
      { type: "user", message: records[2]!.message, session_id: sid, uuid: uuid(3) },
      { type: "assistant", message: records[3]!.message, session_id: sid, uuid: uuid(4), parent_tool_use_id: null },
      {
        type: "result",
        subtype: "success",
        is_error: false,
        session_id: sid,
        total_cost_usd: n * 0.01,
        duration_ms: 1000,
        num_turns: 2,
        result: "done",
        usage: {},
      },
    ];
    recorder.recordInput(JSON.stringify({ type: "user", message: { role: "user", content: prompt } }));
    recorder.handleStdout(Buffer.from(stream.map(line).join("")));
    await handle.saved;
  }
  await recorder.close();
  return opened.manifest.id;
}

function seconds(since: bigint): number {
  return Number(process.hrtime.bigint() - since) / 1e9;
}

async function sizeOf(target: string): Promise<number> {
  const stat = await fs.stat(target);
  if (!stat.isDirectory()) return stat.size;
  let total = 0;
  for (const e of await fs.readdir(target)) total += await sizeOf(path.join(target, e));
  return total;
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const turns = Number(process.argv[2] ?? 200);
  const files = Number(process.argv[3] ?? 1000);
  process.stderr.write(`… recording a ${turns}-turn session in a ${files}-file repository\n`);
  const r = await exportBench(turns, files);
  const out = (s: string) => process.stdout.write(s + "\n");
  out(
    `Export and import of a ${r.turns}-turn session (${r.files}-file repository; recorded in ${r.recordSeconds.toFixed(1)} s; its bundle folder holds ${kib(r.bundleFolderBytes)})`,
  );
  out("| what | time | size |");
  out("|---|---:|---:|");
  out(`| nudge session export | ${r.exportSeconds.toFixed(2)} s | ${kib(r.exportBytes)} |`);
  out(`| nudge session import | ${r.importSeconds.toFixed(2)} s | |`);
  out(
    `| git bundle create (the same commits, thin against origin) | ${r.gitBundleSeconds.toFixed(2)} s | ${kib(r.gitBundleBytes)} |`,
  );
  out(
    `| ratio export ÷ git bundle | ${(r.exportSeconds / r.gitBundleSeconds).toFixed(1)}× | ${(r.exportBytes / r.gitBundleBytes).toFixed(1)}× |`,
  );
}
