/**
 * Runs the real `nudge claude run` (the built CLI, dist/nudge.mjs) in a repository, driving the
 * stand-in claude (stand-in-claude.mjs), with every prompt piped on stdin at once, as a script or
 * an agentic loop queues them. Returns what the stand-in recorded: when each prompt arrived and
 * when each result was written, on the machine's monotonic clock, plus its git status timings.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { scratchDir } from "./repo.js";
import { sleep } from "./stats.js";

const here = path.dirname(fileURLToPath(import.meta.url));
/** The CLI under test: the built one, or another build to compare (BENCH_CLI=path/to/dist/nudge.mjs). */
export const CLI = process.env.BENCH_CLI
  ? path.resolve(process.env.BENCH_CLI)
  : path.resolve(here, "..", "dist", "nudge.mjs");
export const STAND_IN = path.resolve(here, "stand-in-claude.mjs");

/** claude's config folder for every bench session: outside the repositories, as ~/.claude is. */
export const claudeConfig = (() => {
  let dir: string | null = null;
  return () => (dir ??= scratchDir("claude-config"));
})();

export type StandInRecord =
  | { type: "prompt"; k: number; t: string; wall: number }
  | { type: "result"; k: number; t: string; wall: number }
  | { type: "status"; k: number; order: "before" | "after"; ms: number }
  | { type: "flood"; k: number; bytes: number; ns: string }
  | { type: "allowed"; k: number; t: string };

export interface SessionRun {
  id: string;
  /** The stand-in's own record of the session (JSON lines). */
  log: string;
  prompts: string[];
  records: StandInRecord[];
  stderr: string;
  /** Between-turn times: result of prompt k → prompt k+1 reaching the stand-in, by k. */
  between: Map<number, number>;
  /** git status timings by k. */
  status: Map<number, number>;
  /** Result and next-prompt moments by k, as epoch milliseconds (to match git's trace2 times). */
  windows: Map<number, { from: number; to: number }>;
}

export interface SessionOptions {
  /** More environment for nudge (and, through it, the stand-in). */
  env?: NodeJS.ProcessEnv;
  /** Options for node before the CLI (e.g. --cpu-prof). */
  nodeArgs?: string[];
  /** Each line nudge prints on stdout, with the moment it was read. */
  onStdoutLine?: (line: string, at: bigint) => void;
  /** Each line nudge prints on stderr (its notices, the turns' end lines), with the moment it was read. */
  onStderrLine?: (line: string, at: bigint) => void;
  /** Called when the stand-in pauses on a `measure` prompt (k); the session goes on when it resolves. */
  onMeasure?: (k: number) => Promise<void> | void;
  /** Continue this session (-r) instead of starting a new one. */
  resume?: string;
  /** claude's config folder (default: the run's own, `claudeConfig()`): a cached fixture keeps its own. */
  claudeConfigDir?: string;
}

let sessionCount = 0;

export async function runSession(repo: string, prompts: string[], o: SessionOptions = {}): Promise<SessionRun> {
  const logDir = scratchDir(`session-${++sessionCount}`);
  const log = path.join(logDir, "stand-in.jsonl");
  const sessions = path.join(repo, ".git", "nudge", "sessions");
  mkdirSync(sessions, { recursive: true });
  const args = [
    ...(o.nodeArgs ?? []),
    CLI,
    "claude",
    "run",
    "--claude-bin",
    STAND_IN,
    "--permission-mode",
    "acceptEdits",
    ...(o.resume ? ["-r", o.resume] : []),
  ];
  const child = spawn(process.execPath, args, {
    cwd: repo,
    env: {
      ...process.env,
      ...o.env,
      CLAUDE_CONFIG_DIR: o.claudeConfigDir ?? claudeConfig(),
      BENCH_LOG: log,
      BENCH_SESSIONS: sessions,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  let pending = "";
  child.stdout.on("data", (chunk: Buffer) => {
    if (!o.onStdoutLine) return;
    const at = process.hrtime.bigint();
    pending += chunk.toString("utf8");
    let nl;
    while ((nl = pending.indexOf("\n")) !== -1) {
      o.onStdoutLine(pending.slice(0, nl), at);
      pending = pending.slice(nl + 1);
    }
  });
  let pendingErr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    const at = process.hrtime.bigint();
    const text = chunk.toString("utf8");
    stderr += text;
    if (!o.onStderrLine) return;
    pendingErr += text;
    let nl;
    while ((nl = pendingErr.indexOf("\n")) !== -1) {
      o.onStderrLine(pendingErr.slice(0, nl), at);
      pendingErr = pendingErr.slice(nl + 1);
    }
  });
  child.stdin.end(prompts.map((p) => p + "\n").join(""));
  const exited = new Promise<number>((resolve) => child.on("close", (code) => resolve(code ?? -1)));
  let done = false;
  const watcher = (async () => {
    if (!o.onMeasure) return;
    while (!done) {
      const pause = `${log}.pause`;
      if (existsSync(pause)) {
        await o.onMeasure(Number(readFileSync(pause, "utf8")));
        rmSync(pause);
      }
      await sleep(10);
    }
  })();
  const code = await exited;
  done = true;
  await watcher;
  if (code !== 0) throw new Error(`nudge claude run exited ${code}:\n${stderr}`);
  const id = /recording session ([0-9a-f]+)/.exec(stderr)?.[1] ?? o.resume;
  if (!id) throw new Error(`no session id in nudge's output:\n${stderr}`);
  const records = readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as StandInRecord);
  if (/^! |error:/m.test(stderr)) throw new Error(`nudge reported a problem:\n${stderr}`);
  return { id, log, prompts, records, stderr, ...timings(records) };
}

function timings(records: StandInRecord[]) {
  const prompts = new Map<number, { t: bigint; wall: number }>();
  const results = new Map<number, { t: bigint; wall: number }>();
  const status = new Map<number, number>();
  for (const r of records) {
    if (r.type === "prompt") prompts.set(r.k, { t: BigInt(r.t), wall: r.wall });
    if (r.type === "result") results.set(r.k, { t: BigInt(r.t), wall: r.wall });
    if (r.type === "status") status.set(r.k, r.ms);
  }
  const between = new Map<number, number>();
  const windows = new Map<number, { from: number; to: number }>();
  for (const [k, result] of results) {
    const next = prompts.get(k + 1);
    if (!next) continue;
    between.set(k, Number(next.t - result.t) / 1e6);
    windows.set(k, { from: result.wall, to: next.wall });
  }
  return { between, status, windows };
}

/**
 * Numbers for the turns' file changes: each new file a turn adds must be new in its repository,
 * however many sessions ran there before.
 */
const turnNumbers = new Map<string, number>();
export function nextTurnNumber(repo: string): number {
  const n = (turnNumbers.get(repo) ?? 0) + 1;
  turnNumbers.set(repo, n);
  return n;
}

/** `count` prompts of one kind (with flags), each numbered for its repository. */
export function prompts(
  repo: string,
  count: number,
  kind: string,
  flags: (k: number) => string[] = () => [],
): string[] {
  return Array.from({ length: count }, (_, i) =>
    ["bench", String(nextTurnNumber(repo)), kind, ...flags(i + 1)].join(" "),
  );
}

/** Wait for nudge's verdict on the untracked cache for this repository (its check runs in the background after the first session). */
export async function untrackedCacheVerdict(repo: string, timeoutMs = 30_000): Promise<string> {
  const dir = path.join(repo, ".git", "nudge", "index");
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const verdict = existsSync(dir)
      ? (await import("node:fs")).readdirSync(dir).find((f) => f.endsWith(".verdict"))
      : undefined;
    if (verdict) return readFileSync(path.join(dir, verdict), "utf8").trim().split(" ")[0]!;
    if (Date.now() > deadline) return "none (the check did not finish)";
    await sleep(100);
  }
}
