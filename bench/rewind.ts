/**
 * Rewind and fork as a user runs them: `nudge session rewind <id> <turn> --yes` and `nudge session
 * fork <id> <turn> --yes` (in place), whole processes, back and forth between the last two turns
 * of a recorded session. The last turn either edits one file and adds one ("small"), or edits
 * 1,000 files and adds 100 ("many"). The goal measures nudge's own work: each command ≤ the
 * floor + 30 ms at 10k files, + 60 ms at 100k. The floor is what no rewind started per command
 * can go below: loading the command (`session rewind --help`) and git's scan of the work tree it
 * must back up (`git status -uall`, in a twin repository with the same files). A whole `git
 * checkout --detach` switching the twin between two commits that differ the same way is shown
 * for scale, and `node -e 0` for node's own start. They alternate, round by round.
 *
 * The repositories (100k files take minutes to generate and record) are kept between runs under
 * /tmp/nudge-bench-cache (BENCH_CACHE to move it; delete it to start afresh).
 *
 *   node --import tsx bench/rewind.ts trace 10000 small    one rewind, git processes timed (GIT_TRACE2_EVENT)
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { readTrace } from "./git-trace.js";
import { applyTurnChange } from "./turn-change.mjs";
import { generateRepo, git } from "./repo.js";
import { CLI, runSession, untrackedCacheVerdict } from "./session.js";
import { alternate, median, progress, timeProcess } from "./stats.js";

export type Change = "small" | "many";

export interface RewindFixture {
  files: number;
  change: Change;
  repo: string;
  twin: string;
  claudeConfig: string;
  /** The recorded session and its last two turns. */
  id: string;
  before: number;
  last: number;
  /** The twin's commits for those two turns. */
  twinBefore: string;
  twinAfter: string;
}

export interface RewindResult {
  files: number;
  change: Change;
  rounds: number;
  /** What the rewind or fork was measured against: which command, its median. */
  rewindMs: number;
  forkMs: number;
  checkoutMs: number;
  nodeMs: number;
  /** What no rewind can go below: loading the command (`session rewind --help`), and git's own scan of the work tree. */
  loadMs: number;
  statusMs: number;
}

const cacheRoot = process.env.BENCH_CACHE ?? "/tmp/nudge-bench-cache";
/** Bump when the fixture's shape changes: an old cache is then made again. */
const FIXTURE_VERSION = 1;

/** The repository, its twin and the recorded session for `files` and `change`: from the cache, or made (and cached). */
export async function rewindFixture(files: number, change: Change): Promise<RewindFixture> {
  const dir = path.join(cacheRoot, `rewind-${files}-${change}`);
  const file = path.join(dir, "fixture.json");
  if (existsSync(file)) {
    const cached = JSON.parse(readFileSync(file, "utf8")) as RewindFixture & { version: number };
    if (cached.version === FIXTURE_VERSION && existsSync(cached.repo) && existsSync(cached.twin)) return cached;
  }
  rmSync(dir, { recursive: true, force: true });
  const label = `${files.toLocaleString("en")} files, ${change}`;
  progress(`rewind fixture, ${label}: generating the repository and its twin (cached in ${dir})`);
  const repo = await generateRepo({ files }, path.join(dir, "repo"));
  const twin = await generateRepo({ files }, path.join(dir, "twin"));
  const claudeConfig = path.join(dir, "claude-config");
  mkdirSync(claudeConfig, { recursive: true });
  // A first session starts nudge's untracked-cache check; a user's later sessions run with its verdict.
  progress(`rewind fixture, ${label}: recording a session`);
  await runSession(repo, ["bench 1 none"], { claudeConfigDir: claudeConfig });
  await untrackedCacheVerdict(repo);
  const session = await runSession(repo, ["bench 2 small", `bench 3 ${change}`, `bench 4 ${change}`], {
    claudeConfigDir: claudeConfig,
  });
  applyTurnChange(twin, 2, "small");
  applyTurnChange(twin, 3, change);
  await git(twin, "add", "-A");
  await git(twin, "commit", "-q", "-m", "turn before");
  const twinBefore = (await git(twin, "rev-parse", "HEAD")).trim();
  applyTurnChange(twin, 4, change);
  await git(twin, "add", "-A");
  await git(twin, "commit", "-q", "-m", "last turn");
  const twinAfter = (await git(twin, "rev-parse", "HEAD")).trim();
  await git(twin, "checkout", "-q", "--detach", twinAfter);
  const fixture: RewindFixture = {
    files,
    change,
    repo,
    twin,
    claudeConfig,
    id: session.id,
    before: 2,
    last: 3,
    twinBefore,
    twinAfter,
  };
  writeFileSync(file, JSON.stringify({ ...fixture, version: FIXTURE_VERSION }, null, 2));
  return fixture;
}

const nudgeEnv = (f: RewindFixture, more: NodeJS.ProcessEnv = {}) => ({
  ...process.env,
  CLAUDE_CONFIG_DIR: f.claudeConfig,
  ...more,
});
const rewindArgs = (f: RewindFixture, back: boolean) => [
  CLI,
  "session",
  "rewind",
  f.id,
  String(back ? f.before : f.last),
  "--yes",
];
const forkArgs = (f: RewindFixture, back: boolean) => [
  CLI,
  "session",
  "fork",
  f.id,
  String(back ? f.before : f.last),
  "--yes",
];

/**
 * Each fork in place makes a session, and every run of this bench makes sixteen or so: removed
 * before and after the rounds, so a run measures the store the fixture was made with, not one
 * grown by every earlier run (400 sessions had made each rewind's checks ~8 ms slower).
 */
async function dropForks(f: RewindFixture): Promise<void> {
  const listed = await timeProcess(process.execPath, [CLI, "session", "list", "--all", "--json"], {
    cwd: f.repo,
    env: nudgeEnv(f),
  });
  const forks = (JSON.parse(listed.stdout) as Array<{ id: string; parent: { id: string } | null }>)
    .filter((s) => s.parent?.id === f.id)
    .map((s) => s.id);
  for (let at = 0; at < forks.length; at += 200)
    await timeProcess(process.execPath, [CLI, "session", "rm", ...forks.slice(at, at + 200), "--yes"], {
      cwd: f.repo,
      env: nudgeEnv(f),
    });
}

export async function rewindBench(files: number, change: Change, rounds: number): Promise<RewindResult> {
  const f = await rewindFixture(files, change);
  await dropForks(f);
  const label = `${files.toLocaleString("en")} files, ${change}`;
  // Round -1 (the warm-up) goes back to the turn before; then forth and back, every round. A rewind
  // and a fork each go back and forth within their round, so each measures both directions equally.
  const back = (round: number) => round % 2 !== 0;
  progress(
    `rewind, ${label}: ${rounds} rounds of nudge rewind, nudge fork, git checkout, node -e 0, rewind --help and git status`,
  );
  const samples = await alternate(rounds, {
    rewind: async (round) => {
      const there = await timeProcess(process.execPath, rewindArgs(f, back(round)), { cwd: f.repo, env: nudgeEnv(f) });
      const again = await timeProcess(process.execPath, rewindArgs(f, !back(round)), { cwd: f.repo, env: nudgeEnv(f) });
      return (there.ms + again.ms) / 2;
    },
    fork: async (round) => {
      const there = await timeProcess(process.execPath, forkArgs(f, back(round)), { cwd: f.repo, env: nudgeEnv(f) });
      const again = await timeProcess(process.execPath, forkArgs(f, !back(round)), { cwd: f.repo, env: nudgeEnv(f) });
      return (there.ms + again.ms) / 2;
    },
    checkout: async (round) => {
      const there = await timeProcess("git", ["checkout", "-q", "--detach", back(round) ? f.twinBefore : f.twinAfter], {
        cwd: f.twin,
      });
      const again = await timeProcess("git", ["checkout", "-q", "--detach", back(round) ? f.twinAfter : f.twinBefore], {
        cwd: f.twin,
      });
      return (there.ms + again.ms) / 2;
    },
    node: async () => (await timeProcess(process.execPath, ["-e", "0"], { cwd: f.repo })).ms,
    load: async () =>
      (await timeProcess(process.execPath, [CLI, "session", "rewind", "--help"], { cwd: f.repo, env: nudgeEnv(f) })).ms,
    // In the twin (the same files): a status in the recorded repository would refresh the index the rewinds use.
    status: async () => (await timeProcess("git", ["status", "--porcelain", "-uall"], { cwd: f.twin })).ms,
  });
  await dropForks(f);
  return {
    files,
    change,
    rounds,
    rewindMs: median(samples.rewind!),
    forkMs: median(samples.fork!),
    checkoutMs: median(samples.checkout!),
    nodeMs: median(samples.node!),
    loadMs: median(samples.load!),
    statusMs: median(samples.status!),
  };
}

/** One rewind there and back with git's trace on: each git process, when it started and how long it ran. */
async function traceRewinds(files: number, change: Change, what: "rewind" | "fork"): Promise<void> {
  const f = await rewindFixture(files, change);
  for (const back of [true, false]) {
    const trace = path.join(cacheRoot, `trace-${process.pid}.json`);
    rmSync(trace, { force: true });
    const started = Date.now();
    const { ms } = await timeProcess(process.execPath, (what === "rewind" ? rewindArgs : forkArgs)(f, back), {
      cwd: f.repo,
      env: nudgeEnv(f, { GIT_TRACE2_EVENT: trace }),
    });
    const processes = existsSync(trace) ? readTrace(trace) : [];
    process.stdout.write(
      `${what} ${back ? "back" : "forth"}: ${ms.toFixed(0)} ms, ${processes.length} git processes, ${processes.reduce((s, p) => s + (p.end ?? p.start) - p.start, 0).toFixed(0)} ms in them\n`,
    );
    for (const p of processes)
      process.stdout.write(
        `  +${(p.start - started).toFixed(0).padStart(5)} ms ${((p.end ?? p.start) - p.start).toFixed(1).padStart(7)} ms  git ${p.command}\n`,
      );
    rmSync(trace, { force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const [mode = "trace", files = "10000", change = "small", what = "rewind"] = process.argv.slice(2);
  if (mode === "trace") await traceRewinds(Number(files), change as Change, what as "rewind" | "fork");
  else process.stdout.write(JSON.stringify(await rewindBench(Number(files), change as Change, 4)) + "\n");
}
