/**
 * A typed prompt → claude: the user edits a file between turns, then types a prompt (Enter), and
 * the time until the prompt reaches the stand-in claude is measured, through the real `nudge
 * claude run` with prompts written one at a time, each after the previous turn's end line (so
 * none is queued, and nudge captures the user's edits with each). The edits are captured beside
 * the prompt; claude's first tool waits for that capture (the edits gate), so the moment the
 * stand-in's Edit is allowed (its PreToolUse hook answered) is measured too. The baseline is `git
 * status --porcelain -uall` timed by the bench on the same state: just before Enter on odd turns,
 * just after the turn on even ones (so neither always warms the other's caches).
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { generateRepo, scratchDir, type RepoShape } from "./repo.js";
import {
  CLI,
  STAND_IN,
  claudeConfig,
  prompts,
  runSession,
  untrackedCacheVerdict,
  type StandInRecord,
} from "./session.js";
import { median, msSince, nowNs, progress, sleep } from "./stats.js";

/** Turns at the start left out: turn 1 runs on a freshly seeded index. */
const WARM_UP_TURNS = 2;
/** The user's pause between a turn's end line and their next prompt (nudge is idle, waiting for it). */
const THINK_MS = 150;

export interface TypedResult {
  shape: RepoShape;
  runs: number;
  /** Enter → the prompt read by the stand-in, median. */
  typedMs: number;
  /** Enter → the stand-in's first tool allowed (its PreToolUse hook answered once the edits were captured), median. */
  toolMs: number;
  statusMs: number;
  ratio: number;
}

export async function typedPrompt(shape: RepoShape, turns: number): Promise<TypedResult> {
  const label = `${shape.files.toLocaleString("en")} files`;
  progress(`typed prompt, ${label}: generating the repository`);
  const repo = await generateRepo(shape);
  progress(`typed prompt, ${label}: a first session (starts nudge's untracked-cache check)`);
  await runSession(repo, prompts(repo, 1, "small"));
  const untrackedCache = await untrackedCacheVerdict(repo);
  progress(
    `typed prompt, ${label}: ${WARM_UP_TURNS + turns} prompts typed one at a time (untracked cache: ${untrackedCache})`,
  );
  const { typed, allowed, status } = await typedSession(repo, prompts(repo, WARM_UP_TURNS + turns, "small"));
  const keep = (values: Map<number, number>) => [...values].filter(([k]) => k > WARM_UP_TURNS).map(([, v]) => v);
  const typedMs = median(keep(typed));
  const statusMs = median(keep(status));
  return {
    shape,
    runs: keep(typed).length,
    typedMs,
    toolMs: median(keep(allowed)),
    statusMs,
    ratio: typedMs / statusMs,
  };
}

async function typedSession(repo: string, lines: string[]) {
  const log = path.join(scratchDir("typed"), "stand-in.jsonl");
  const sessions = path.join(repo, ".git", "nudge", "sessions");
  mkdirSync(sessions, { recursive: true });
  const child = spawn(
    process.execPath,
    [CLI, "claude", "run", "--claude-bin", STAND_IN, "--permission-mode", "acceptEdits"],
    {
      cwd: repo,
      env: { ...process.env, CLAUDE_CONFIG_DIR: claudeConfig(), BENCH_LOG: log, BENCH_SESSIONS: sessions },
      stdio: ["pipe", "ignore", "pipe"],
    },
  );
  let stderr = "";
  const ended = new Set<number>();
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
    for (const m of stderr.matchAll(/turn (\d+) · /g)) ended.add(Number(m[1]));
  });
  const exited = new Promise<number>((resolve) => child.on("close", (code) => resolve(code ?? -1)));
  const enter = new Map<number, bigint>();
  const status = new Map<number, number>();
  const timeStatus = async (k: number) => {
    const start = nowNs();
    await new Promise<void>((resolve, reject) =>
      spawn("git", ["status", "--porcelain", "-uall"], { cwd: repo, stdio: "ignore" }).on("close", (code) =>
        code === 0 ? resolve() : reject(new Error(`git status exited ${code}`)),
      ),
    );
    status.set(k, msSince(start));
  };
  const edits = path.join(repo, "user-edits");
  mkdirSync(edits, { recursive: true });
  for (let k = 1; k <= lines.length; k++) {
    if (k > 1) {
      while (!ended.has(k - 1)) await sleep(2);
      if (k % 2 === 1) await timeStatus(k - 1);
      await sleep(THINK_MS);
    }
    // The user's edit between turns: one file changed, one added.
    writeFileSync(path.join(edits, "notes.txt"), `edited before prompt ${k}\n`);
    writeFileSync(path.join(edits, `added-${k}.txt`), `added before prompt ${k}\n`);
    if (k % 2 === 1) await timeStatus(k);
    enter.set(k, nowNs());
    child.stdin.write(lines[k - 1] + "\n");
  }
  while (!ended.has(lines.length)) await sleep(2);
  child.stdin.end();
  const code = await exited;
  if (code !== 0) throw new Error(`nudge claude run exited ${code}:\n${stderr}`);
  if (/^! |error:/m.test(stderr)) throw new Error(`nudge reported a problem:\n${stderr}`);
  const records = readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as StandInRecord);
  const since = (type: "prompt" | "allowed") =>
    new Map(
      records.flatMap((r) =>
        r.type === type && enter.has(r.k)
          ? [[r.k, Number(BigInt(r.t) - enter.get(r.k)!) / 1e6] as [number, number]]
          : [],
      ),
    );
  // Even turns' status was timed just after the turn: the same repository, one turn's change apart.
  return { typed: since("prompt"), allowed: since("allowed"), status };
}
