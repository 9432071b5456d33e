/**
 * The whole turn as the user feels it (issue 24): a scripted 20-turn session through `nudge
 * claude run` against the same 20 turns given straight to the real `claude -p` (stream-json, the
 * prompts queued on stdin), both with the pinned claude driven by the scripted Messages API on
 * loopback, on the same repository. Each turn writes one file and answers. The difference per
 * turn, start included, is what nudge costs a session: its start, the flags it adds, the
 * recorder, the snapshots and the renderer. The baseline for it is `git status -uall` on the
 * repository (the goal: ≤ status + 50 ms a turn).
 *
 *   node --import tsx bench/scripted-session.ts 1000 10000     the medians, printed (the row: --only=scripted)
 */
import { execa } from "execa";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CLAUDE_ARGS, CLAUDE_BIN, claudeEnv } from "../test/support/claude-env.js";
import { startScriptedApi, type ScriptStep } from "../test/support/scripted-api.js";
import { generateRepo, git, scratchDir, settleIndex } from "./repo.js";
import { alternate, median, nowNs, msSince, progress, fmtMs } from "./stats.js";

const CLI = process.env.BENCH_CLI ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/nudge.mjs");

export interface ScriptedSessionResult {
  files: number;
  turns: number;
  rounds: number;
  /** Whole sessions, ms. */
  nudge: number[];
  claude: number[];
  /** `git status --porcelain -uall` on the repository, median ms. */
  statusMs: number;
}

export async function scriptedSession(files: number, turns = 20, rounds = 3): Promise<ScriptedSessionResult> {
  progress(`scripted session, ${files.toLocaleString("en")} files: generating the repository`);
  const repo = await generateRepo({ files });
  await settleIndex(repo);
  progress(
    `scripted session, ${files.toLocaleString("en")} files: ${rounds} rounds of ${turns} turns through nudge and straight`,
  );
  let run = 0;
  const samples = await alternate(rounds, {
    nudge: () => session(repo, turns, ++run, "nudge"),
    claude: () => session(repo, turns, ++run, "claude"),
  });
  const status: number[] = [];
  for (let i = 0; i < 7; i++) {
    const start = nowNs();
    await git(repo, "status", "--porcelain", "-uall");
    status.push(msSince(start));
  }
  return { files, turns, rounds, nudge: samples.nudge!, claude: samples.claude!, statusMs: median(status) };
}

/** One whole session, launch to exit; every run writes different content, so every turn changes a file. */
async function session(repo: string, turns: number, run: number, how: "nudge" | "claude"): Promise<number> {
  const steps: ScriptStep[] = [];
  const prompts: string[] = [];
  for (let n = 1; n <= turns; n++) {
    steps.push(
      {
        tool: "Write",
        input: { file_path: path.join(repo, "scripted", `turn-${n}.txt`), content: `run ${run}, turn ${n}\n` },
      },
      { text: `wrote turn-${n}.txt` },
    );
    prompts.push(`turn ${n}: write scripted/turn-${n}.txt`);
  }
  const api = await startScriptedApi(steps);
  const env = { ...process.env, NO_COLOR: "1", ...claudeEnv(api, path.join(scratchDir("claude-config"), "claude")) };
  try {
    const start = nowNs();
    const r =
      how === "nudge"
        ? await execa(
            "node",
            [
              CLI,
              "claude",
              "run",
              "--claude-bin",
              CLAUDE_BIN,
              "--permission-mode",
              "acceptEdits",
              "--allowed-tools",
              "Bash",
            ],
            { cwd: repo, env, input: prompts.join("\n") + "\n", reject: false, timeout: 600_000 },
          )
        : await straight(repo, env, prompts);
    const ms = msSince(start);
    if (r.exitCode !== 0 || api.remaining() !== 0)
      throw new Error(
        `${how} failed (exit ${r.exitCode}, ${api.remaining()} steps left): ${String(r.stderr).slice(-1500)}`,
      );
    return ms;
  } finally {
    await api.close();
  }
}

/**
 * claude itself, driven as nudge drives it: the next prompt written when the last turn's result
 * is read (claude takes a prompt written during a turn into that turn, not as a turn of its own).
 */
async function straight(
  repo: string,
  env: NodeJS.ProcessEnv,
  prompts: string[],
): Promise<{ exitCode: number | undefined; stderr: string }> {
  // BENCH_STRAIGHT_ARGS: flags added to claude's own (to time what nudge's extra flags cost claude).
  const extra = process.env.BENCH_STRAIGHT_ARGS?.split(" ").filter(Boolean) ?? [];
  const child = execa(CLAUDE_BIN, [...CLAUDE_ARGS, ...extra], {
    cwd: repo,
    env,
    stdin: "pipe",
    stdout: "pipe",
    reject: false,
    timeout: 600_000,
  });
  const send = (prompt: string) =>
    child.stdin!.write(JSON.stringify({ type: "user", message: { role: "user", content: prompt } }) + "\n");
  let next = 0;
  send(prompts[next++]!);
  let rest = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    const lines = (rest + chunk.toString("utf8")).split("\n");
    rest = lines.pop()!;
    for (const line of lines) {
      if ((JSON.parse(line) as { type?: string }).type !== "result") continue;
      if (next < prompts.length) send(prompts[next++]!);
      else child.stdin!.end();
    }
  });
  const r = await child;
  return { exitCode: r.exitCode, stderr: String(r.stderr) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  // The table's row is bench/report.ts's (npm run bench -- --only=scripted); alone, the medians.
  const sizes = process.argv
    .slice(2)
    .map(Number)
    .filter((n) => n > 0);
  for (const files of sizes.length ? sizes : [1_000, 10_000]) {
    const r = await scriptedSession(files, Number(process.env.TURNS ?? 20), Number(process.env.ROUNDS ?? 3));
    const perTurn = (median(r.nudge) - median(r.claude)) / r.turns;
    console.log(
      `${files} files: nudge ${fmtMs(median(r.nudge))}, straight claude ${fmtMs(median(r.claude))} a session; per turn ${fmtMs(perTurn)}; git status ${fmtMs(r.statusMs)}; n=${r.rounds}`,
    );
  }
}
