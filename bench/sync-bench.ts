/**
 * Team sync (issue 18), through the built CLI against a bare repository on disk:
 *
 * - push of turn N+1 after turn N: what git sends for the new publication (its own report of the
 *   pack written), against how much the published export grew with that turn (the turn's own
 *   bytes: its log lines, transcript lines, patch, journal record and snapshot objects) and the
 *   whole export. The session is recorded in-process by the real recorder (export-bench.ts);
 *   turn N is published with --upto N, then the session whole.
 * - 1,000 published sessions: `nudge session fetch` (cards only) in a fresh clone against `git
 *   fetch` of the same refs (cards and content), time and bytes; then `nudge session list
 *   --remote` against `git for-each-ref` of the fetched refs. The publications are made with git
 *   plumbing (`fast-import`): a 64 KiB export each (incompressible, as gzip-able text is not
 *   after git's own compression of many sessions) and a real card.
 *
 *   npm run bench -- --only=sync            (or: npm run build && node --import tsx bench/sync-bench.ts)
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, promises as fs, realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { record, repositories } from "./export-bench.js";
import { CLI } from "./session.js";
import { alternate, fmtBytes, fmtMs, median, progress, timeProcess } from "./stats.js";

const run = promisify(execFile);
const git = (cwd: string, ...args: string[]) => run("git", args, { cwd, maxBuffer: 1 << 30 });
const nudge = (cwd: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
  run("node", [CLI, ...args], { cwd, env: { ...process.env, NO_COLOR: "1", ...env }, maxBuffer: 1 << 30 });

export interface PushStep {
  turns: number;
  /** Bytes git sent for turn N+1's publication. */
  sent: number;
  /** How much the uncompressed export grew with turn N+1, and its whole size then. */
  turnBytes: number;
  exportBytes: number;
  /** What the first publication (turns 0..N) sent. */
  firstSent: number;
}

export interface SyncBenchResult {
  push: PushStep[];
  sessions: number;
  fetch: { nudgeMs: number; nudgeBytes: number; gitMs: number; gitBytes: number };
  list: { rounds: number; nudgeMs: number; gitMs: number };
}

export async function syncBench(turnCounts = [10, 50], sessions = 1000, rounds = 7): Promise<SyncBenchResult> {
  const top = realpathSync(mkdtempSync(path.join(os.tmpdir(), "nudge-bench-sync-")));
  try {
    const push: PushStep[] = [];
    for (const n of turnCounts) push.push(await pushStep(path.join(top, `push-${n}`), n));
    const many = await manyPublished(path.join(top, "many"), sessions, rounds);
    return { push, sessions, ...many };
  } finally {
    await fs.rm(top, { recursive: true, force: true });
  }
}

async function pushStep(top: string, n: number): Promise<PushStep> {
  await fs.mkdir(top, { recursive: true });
  progress(`sync: a ${n + 1}-turn session recorded in a 1k-file repository; turn ${n + 1} pushed after turn ${n}`);
  const { a } = await repositories(top, 1000);
  const cfg = path.join(top, "cfg");
  const id = await record(a, cfg, n + 1);
  const server = path.join(top, "origin.git");
  const first = JSON.parse(
    (
      await nudge(a, ["session", "push", id, "--upto", String(n), "--remote", server, "--json"], {
        CLAUDE_CONFIG_DIR: cfg,
      })
    ).stdout,
  )[0];
  const next = JSON.parse(
    (await nudge(a, ["session", "push", id, "--remote", server, "--json"], { CLAUDE_CONFIG_DIR: cfg })).stdout,
  )[0];
  if (next.plan.kind !== "update") throw new Error(`the second push was not an update: ${JSON.stringify(next.plan)}`);
  return {
    turns: n,
    sent: next.sentBytes,
    turnBytes: next.exportBytes - first.exportBytes,
    exportBytes: next.exportBytes,
    firstSent: first.sentBytes,
  };
}

async function manyPublished(
  top: string,
  sessions: number,
  rounds: number,
): Promise<Pick<SyncBenchResult, "fetch" | "list">> {
  await fs.mkdir(top, { recursive: true });
  progress(`sync: ${sessions} published sessions made with git fast-import, fetched and listed`);
  const { a } = await repositories(top, 10);
  const server = path.join(top, "origin.git");
  await fastImport(server, sessions);

  // Cold: each tool into a fresh repository of its own, once (a second fetch has nothing to do).
  let t = process.hrtime.bigint();
  await nudge(a, ["session", "fetch", "--remote", server]);
  const nudgeMs = Number(process.hrtime.bigint() - t) / 1e6;
  const nudgeBytes = await dirBytes(path.join(a, ".git", "nudge", "remote.git", "objects"));
  const plain = path.join(top, "plain.git");
  await git(top, "init", "-q", "--bare", plain);
  t = process.hrtime.bigint();
  await git(plain, "fetch", "-q", server, "+refs/nudge/published/*:refs/nudge/published/*");
  const gitMs = Number(process.hrtime.bigint() - t) / 1e6;
  const gitBytes = await dirBytes(path.join(plain, "objects"));

  const sync = path.join(a, ".git", "nudge", "remote.git");
  const samples = await alternate(rounds, {
    nudge: async () => {
      const r = await timeProcess("node", [CLI, "session", "list", "--remote", server, "--all"], {
        cwd: a,
        env: { ...process.env, NO_COLOR: "1" },
      });
      if (r.stdout.split("\n").length < sessions) throw new Error("the listing is short");
      return r.ms;
    },
    git: async () =>
      (
        await timeProcess("git", ["for-each-ref", "--format=%(objectname) %(refname)", "refs/nudge/remote/"], {
          cwd: sync,
        })
      ).ms,
  });
  return {
    fetch: { nudgeMs, nudgeBytes, gitMs, gitBytes },
    list: { rounds, nudgeMs: median(samples.nudge!), gitMs: median(samples.git!) },
  };
}

/** `sessions` publications: a 64 KiB export.tar and a card each, under refs/nudge/published/<id>/. */
async function fastImport(server: string, sessions: number): Promise<void> {
  await git(path.dirname(server), "init", "-q", "--bare", server);
  const parts: Buffer[] = [];
  const when = 1_700_000_000;
  for (let i = 0; i < sessions; i++) {
    const id = randomBytes(5).toString("hex");
    const content = randomBytes(64 * 1024);
    parts.push(
      Buffer.from(
        `commit refs/nudge/published/${id}/data\nmark :${2 * i + 1}\ncommitter nudge <nudge@localhost> ${when} +0000\ndata 8\npublish\nM 100644 inline export.tar\ndata ${content.length}\n`,
      ),
      content,
      Buffer.from("\n"),
    );
    const card = JSON.stringify({
      kind: "nudge-published",
      format: 1,
      id,
      session: id,
      forkOf: null,
      author: `Dev ${i} <dev${i}@example.com>`,
      branch: "main",
      turns: 1 + (i % 40),
      lastTurnAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
      firstPrompt: `fix the flaky test number ${i}`,
      lastPrompt: "run the tests again",
      publishedAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
      data: "0".repeat(40),
      bytes: content.length,
      sha256: "0".repeat(64),
      nudgeVersion: "0.1.0",
    });
    parts.push(
      Buffer.from(
        `commit refs/nudge/published/${id}/card\ncommitter nudge <nudge@localhost> ${when} +0000\ndata 5\ncard\nM 100644 inline card.json\ndata ${Buffer.byteLength(card)}\n${card}\n`,
      ),
    );
  }
  await new Promise<void>((resolve, reject) => {
    const child = execFile("git", ["fast-import", "--quiet"], { cwd: server }, (error) =>
      error ? reject(error) : resolve(),
    );
    child.stdin!.end(Buffer.concat(parts));
  });
}

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    total += e.isDirectory() ? await dirBytes(p) : (await fs.stat(p)).size;
  }
  return total;
}

export function syncReport(r: SyncBenchResult): string[] {
  const out = [
    "Team sync (`session push`, `fetch`, `list --remote`) against a bare repository on disk:",
    "",
    "| what | nudge | baseline | ratio |",
    "|---|---:|---:|---:|",
  ];
  for (const p of r.push) {
    out.push(
      `| push of turn ${p.turns + 1} after turn ${p.turns}: bytes sent ÷ the turn's own bytes (the export's growth) | ${fmtBytes(p.sent)} | ${fmtBytes(p.turnBytes)} | ${(p.sent / p.turnBytes).toFixed(2)}× |`,
    );
    out.push(
      `| … the same push ÷ the whole export (${fmtBytes(p.exportBytes)}; the first push of turns 0–${p.turns} sent ${fmtBytes(p.firstSent)}) | ${fmtBytes(p.sent)} | ${fmtBytes(p.exportBytes)} | ${(p.sent / p.exportBytes).toFixed(3)}× |`,
    );
  }
  out.push(
    `| fetch of ${r.sessions.toLocaleString("en")} sessions' listing vs \`git fetch\` of the same refs: time | ${fmtMs(r.fetch.nudgeMs)} | ${fmtMs(r.fetch.gitMs)} | ${(r.fetch.nudgeMs / r.fetch.gitMs).toFixed(2)}× |`,
  );
  out.push(
    `| … bytes stored | ${fmtBytes(r.fetch.nudgeBytes)} | ${fmtBytes(r.fetch.gitBytes)} | ${(r.fetch.nudgeBytes / r.fetch.gitBytes).toFixed(3)}× |`,
  );
  out.push(
    `| \`session list --remote --all\` of ${r.sessions.toLocaleString("en")} vs \`git for-each-ref\` of their refs (median of ${r.list.rounds}) | ${fmtMs(r.list.nudgeMs)} | ${fmtMs(r.list.gitMs)} | ${(r.list.nudgeMs / r.list.gitMs).toFixed(1)}× |`,
  );
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const r = await syncBench();
  process.stdout.write(syncReport(r).join("\n") + "\n");
}
