/**
 * `nudge session import` as a user runs it (a whole process) against `git bundle unbundle` of the
 * export's own git bundle in the same clone, and against reading every byte of the export once
 * (`tar -xzOf`: gunzip and read every entry, written nowhere). Each import goes into a clone that
 * lacks the session: the imported session, its refs and claude's files are removed between runs
 * (the objects stay, as they would for a user importing a second session of the same work).
 * Alternating runs. The session is made as bench/export-bench.ts makes it. The goal measures
 * nudge's own work: the import ≤ the floor (loading the command, `session import --help`, plus
 * one unbundle and one read of the export) + 30 ms.
 *
 *   node --import tsx bench/import-bench.ts [turns] [files] [rounds]
 */
import { execFile } from "node:child_process";
import { mkdtempSync, promises as fs, realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { loadSession, openStore } from "../src/store/store.js";
import { exportSession } from "../src/sharing/export-session.js";
import { record, repositories } from "./export-bench.js";
import { readTrace } from "./git-trace.js";
import { CLI } from "./session.js";
import { alternate, median, progress, timeProcess } from "./stats.js";

const run = promisify(execFile);
const git = async (cwd: string, ...args: string[]) => (await run("git", args, { cwd, maxBuffer: 1 << 30 })).stdout;

export interface ImportBenchRow {
  turns: number;
  files: number;
  exportBytes: number;
  rounds: number;
  importMs: number;
  unbundleMs: number;
  /** Reading every byte of the export once: gunzip and read every entry. */
  readMs: number;
  /** Loading the command (`session import --help`): what an import costs before it reads a byte. */
  loadMs: number;
}

/** `trace`: first one import with git's trace and a CPU profile (into this folder), its git processes printed. */
export async function importBench(turns = 200, files = 1000, rounds = 6, trace?: string): Promise<ImportBenchRow> {
  const top = realpathSync(mkdtempSync(path.join(os.tmpdir(), "nudge-bench-import-")));
  try {
    const { a, b } = await repositories(top, files);
    const cfgA = path.join(top, "cfg-a");
    progress(`import: recording a ${turns}-turn session in a ${files}-file repository`);
    const id = await record(a, cfgA, turns);
    const store = await openStore(a, {});
    const out = path.join(top, `nudge-${id}.tar.gz`);
    await exportSession(store, await loadSession(store, id), {
      out,
      upto: null,
      redact: true,
      allowSecretsInCode: true,
      env: { CLAUDE_CONFIG_DIR: cfgA },
    });
    // The export's git bundle, for git's own unbundle.
    const unpacked = path.join(top, "unpacked");
    await fs.mkdir(unpacked);
    await run("tar", ["-xzf", out, "-C", unpacked]);
    const bundle = (await fs.readdir(unpacked, { recursive: true })).map(String).find((f) => f.endsWith(".bundle"));
    if (!bundle) throw new Error("no git bundle in the export");
    const cfgB = path.join(top, "cfg-b");
    const env = { ...process.env, CLAUDE_CONFIG_DIR: cfgB };
    const forget = async () => {
      // What the import added, gone again (its objects stay in the clone, as git's unbundle leaves its own).
      await fs.rm(path.join(b, ".git", "nudge", "sessions"), { recursive: true, force: true });
      await fs.rm(cfgB, { recursive: true, force: true });
      for (const ref of (await git(b, "for-each-ref", "--format=%(refname)", "refs/nudge/"))
        .split("\n")
        .filter(Boolean))
        await git(b, "update-ref", "-d", ref);
    };
    if (trace) {
      await forget();
      const events = path.join(trace, "trace2.json");
      const started = Date.now();
      const { ms } = await timeProcess(
        process.execPath,
        ["--cpu-prof", "--cpu-prof-dir", trace, CLI, "session", "import", out, "--json"],
        { cwd: b, env: { ...env, GIT_TRACE2_EVENT: events } },
      );
      const processes = readTrace(events);
      process.stdout.write(`import: ${ms.toFixed(0)} ms, ${processes.length} git processes\n`);
      for (const p of processes)
        process.stdout.write(
          `  +${(p.start - started).toFixed(0).padStart(5)} ms ${((p.end ?? p.start) - p.start).toFixed(1).padStart(7)} ms  git ${p.command}\n`,
        );
    }
    progress(`import: ${rounds} rounds of nudge session import, git bundle unbundle, tar -xzOf and import --help`);
    const samples = await alternate(rounds, {
      import: async () => {
        await forget();
        const { ms, stdout } = await timeProcess(process.execPath, [CLI, "session", "import", out, "--json"], {
          cwd: b,
          env,
        });
        if (!stdout.includes('"status": "imported"') && !stdout.includes('"status":"imported"'))
          throw new Error(`the import did not import: ${stdout}`);
        return ms;
      },
      unbundle: async () =>
        (await timeProcess("git", ["bundle", "unbundle", path.join(unpacked, bundle)], { cwd: b })).ms,
      read: async () => (await timeProcess("sh", ["-c", 'tar -xzOf "$1" > /dev/null', "sh", out], { cwd: b })).ms,
      load: async () => (await timeProcess(process.execPath, [CLI, "session", "import", "--help"], { cwd: b, env })).ms,
    });
    return {
      turns,
      files,
      exportBytes: (await fs.stat(out)).size,
      rounds,
      importMs: median(samples.import!),
      unbundleMs: median(samples.unbundle!),
      readMs: median(samples.read!),
      loadMs: median(samples.load!),
    };
  } finally {
    await fs.rm(top, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const [turns = "200", files = "1000", rounds = "6", trace] = process.argv.slice(2);
  process.stdout.write(JSON.stringify(await importBench(Number(turns), Number(files), Number(rounds), trace)) + "\n");
}
