/**
 * Between-turn cost, end to end: from the moment the stand-in claude writes a turn's `result`
 * to the moment the next prompt reaches it, through the real `nudge claude run` process, with
 * every prompt queued on stdin. Each turn edits one file and adds one (before its result), and
 * appends ~40 KB to claude's transcript. The baseline is `git status --porcelain -uall` on the
 * same repository in the same state (the stand-in times it on every measured turn, before its
 * result on odd turns and after the next prompt on even ones).
 */
import path from "node:path";
import { profileWindows, readProfile, type WindowProfile } from "./cpu-profile.js";
import { describeWindow, inWindow, readTrace } from "./git-trace.js";
import { generateRepo, scratchDir, type RepoShape } from "./repo.js";
import { prompts, runSession, untrackedCacheVerdict, type SessionRun } from "./session.js";
import { median, progress } from "./stats.js";

/** Turns at the start of a session left out of the figures: turn 1 runs on a freshly seeded index. */
const WARM_UP_TURNS = 2;

export interface BetweenResult {
  shape: RepoShape;
  repo: string;
  /** The timed session, for the rewind bench. */
  session: SessionRun;
  /** Measured turns (between-turn and status samples each). */
  runs: number;
  betweenMs: number;
  statusMs: number;
  ratio: number;
  /** From claude's result to nudge printing that turn's end line (`● turn k · outcome · time · cost`), median over the measured turns. */
  endLineMs: number;
  /** From claude's result to the line under it that says what the turn changed (`⎿ turn k saved · …`, once the turn is saved). */
  changesLineMs: number;
  /** Turns both lines were timed on. */
  endLineRuns: number;
  /** git processes nudge started between result and next prompt: median and range over the traced turns. */
  gitProcesses: { median: number; min: number; max: number; turns: number };
  /** Every git process of a turn, from its result to the next result. */
  gitProcessesPerTurn: { median: number; min: number; max: number; turns: number };
  /** What the untracked-cache check decided for this repository. */
  untrackedCache: string;
  /** One traced between-turn, process by process. */
  traceOfOneTurn: string[];
}

export async function betweenTurns(shape: RepoShape, turns: number): Promise<BetweenResult> {
  const label = `${shape.files.toLocaleString("en")} files${shape.untrackedBinaryMB ? ` + ${shape.untrackedBinaryMB} MB untracked binaries` : ""}`;
  progress(`between turns, ${label}: generating the repository`);
  const repo = await generateRepo(shape);
  // The first session in a repository starts nudge's untracked-cache check (a few seconds, in the
  // background); a user's sessions after that run with its verdict, so the measured one does too.
  progress(`between turns, ${label}: a first session (starts nudge's untracked-cache check)`);
  await runSession(repo, prompts(repo, 1, "small"));
  const untrackedCache = await untrackedCacheVerdict(repo);
  progress(
    `between turns, ${label}: ${WARM_UP_TURNS + turns} turns, git status timed on each (untracked cache: ${untrackedCache})`,
  );
  // When nudge printed each turn's end line and its changes line, on stderr with its other notices
  // (the stand-in's result moments are on the same monotonic clock).
  const endLines = new Map<number, bigint>();
  const changesLines = new Map<number, bigint>();
  const onStderrLine = (line: string, at: bigint) => {
    const end = /● turn (\d+) · /.exec(line)?.[1];
    if (end !== undefined && !endLines.has(Number(end))) endLines.set(Number(end), at);
    const changes = /⎿ turn (\d+) saved · /.exec(line)?.[1];
    if (changes !== undefined && !changesLines.has(Number(changes))) changesLines.set(Number(changes), at);
  };
  const session = await runSession(
    repo,
    prompts(repo, WARM_UP_TURNS + turns, "small", () => ["status"]),
    { onStderrLine },
  );
  const between: number[] = [];
  const status: number[] = [];
  const endLine: number[] = [];
  const changesLine: number[] = [];
  for (let k = WARM_UP_TURNS + 1; k <= WARM_UP_TURNS + turns; k++) {
    const b = session.between.get(k);
    const s = session.status.get(k);
    if (b !== undefined) between.push(b);
    if (s !== undefined) status.push(s);
    const result = session.records.find((r) => r.type === "result" && r.k === k);
    const line = endLines.get(k);
    const changes = changesLines.get(k);
    if (result?.type === "result" && line !== undefined && changes !== undefined) {
      endLine.push(Number(line - BigInt(result.t)) / 1e6);
      changesLine.push(Number(changes - BigInt(result.t)) / 1e6);
    }
  }
  progress(`between turns, ${label}: a traced session (GIT_TRACE2_EVENT) to count git processes`);
  const traced = await tracedSession(repo, 5);
  const betweenMs = median(between);
  const statusMs = median(status);
  return {
    shape,
    repo,
    session,
    runs: between.length,
    betweenMs,
    statusMs,
    ratio: betweenMs / statusMs,
    endLineMs: median(endLine),
    changesLineMs: median(changesLine),
    endLineRuns: endLine.length,
    untrackedCache,
    ...traced,
  };
}

async function tracedSession(repo: string, turns: number) {
  const trace = path.join(scratchDir("trace"), "trace2.json");
  const run = await runSession(repo, prompts(repo, WARM_UP_TURNS + turns, "small"), {
    env: { GIT_TRACE2_EVENT: trace },
  });
  const processes = readTrace(trace);
  const counts: number[] = [];
  const perTurn: number[] = [];
  let traceOfOneTurn: string[] = [];
  for (const [k, w] of run.windows) {
    if (k <= WARM_UP_TURNS || !run.windows.has(k)) continue;
    counts.push(inWindow(processes, w.from, w.to).length);
    // A turn's whole cycle, from its result to the next one's (the stand-in acts only once the turn is saved).
    const next = run.windows.get(k + 1);
    if (next) perTurn.push(inWindow(processes, w.from, next.from).length);
    if (traceOfOneTurn.length === 0)
      traceOfOneTurn = [
        `result → prompt: ${(w.to - w.from).toFixed(1)} ms (traced)`,
        ...describeWindow(processes, w.from, w.to),
      ];
  }
  return {
    gitProcesses: { median: median(counts), min: Math.min(...counts), max: Math.max(...counts), turns: counts.length },
    gitProcessesPerTurn: {
      median: median(perTurn),
      min: Math.min(...perTurn),
      max: Math.max(...perTurn),
      turns: perTurn.length,
    },
    traceOfOneTurn,
  };
}

export interface BetweenProfile {
  turns: Array<{ k: number; ms: number; git: string[] }>;
  cpu: WindowProfile;
}

/**
 * One session with both git's trace and a CPU profile of nudge: the git processes of each
 * between-turn and where nudge's own time goes in those windows.
 */
export async function profileBetweenTurns(repo: string, turns: number): Promise<BetweenProfile> {
  const dir = scratchDir("profile");
  const trace = path.join(dir, "trace2.json");
  const run = await runSession(repo, prompts(repo, WARM_UP_TURNS + turns, "small"), {
    env: { GIT_TRACE2_EVENT: trace },
    nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${dir}`],
  });
  const processes = readTrace(trace);
  const prompts_ = new Map<number, bigint>();
  const results = new Map<number, bigint>();
  for (const r of run.records) {
    if (r.type === "prompt") prompts_.set(r.k, BigInt(r.t));
    if (r.type === "result") results.set(r.k, BigInt(r.t));
  }
  const windows: Array<{ fromUs: number; toUs: number }> = [];
  const out: BetweenProfile["turns"] = [];
  for (const [k, w] of run.windows) {
    if (k <= WARM_UP_TURNS) continue;
    windows.push({ fromUs: Number(results.get(k)! / 1000n), toUs: Number(prompts_.get(k + 1)! / 1000n) });
    out.push({ k, ms: w.to - w.from, git: describeWindow(processes, w.from, w.to) });
  }
  return { turns: out, cpu: profileWindows(readProfile(dir), windows) };
}
