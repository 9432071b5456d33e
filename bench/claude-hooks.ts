/**
 * What `nudge hooks install --claude` adds to a plain claude: each hook is one short nudge process
 * (`nudge hooks claude-event`, the built CLI), called here as claude calls it, with the hook's JSON
 * on stdin, at 1k / 10k / 100k files. Per turn: the user has edited a file (so UserPromptSubmit
 * captures the edits), a tool's PreToolUse, a file written, the turn's transcript lines, Stop (the
 * hook returns at once; the detached process it starts saves the turn: "Stop → saved"). The
 * baseline is a bare `node -e 0` started the same way in the same run: what any command hook costs.
 *
 *   node --import tsx bench/claude-hooks.ts [turns] [sizes…]
 */
import { execa } from "execa";
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { generateRepo, scratchDir } from "./repo.js";
import { median, progress, sleep } from "./stats.js";

const CLI = path.resolve(process.env.BENCH_CLI ?? "dist/nudge.mjs");

/** Wall time, and the CPU the process and its children (git) used: on a loaded machine the CPU says more. */
async function timed(
  args: string[],
  input: object,
  o: { cwd: string; env: Record<string, string> },
): Promise<{ wall: number; cpu: number }> {
  const cpu0 = childrenCpuMs();
  const t = performance.now();
  await execa(process.execPath, args, { cwd: o.cwd, env: o.env, input: JSON.stringify(input) });
  return { wall: performance.now() - t, cpu: childrenCpuMs() - cpu0 };
}

/** CPU of this process's waited-for children (Linux: cutime + cstime, in clock ticks of 10 ms). */
function childrenCpuMs(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

async function measure(files: number, turns: number) {
  progress(`claude hooks, ${files.toLocaleString("en")} files: generating the repository`);
  const repo = await generateRepo({ files });
  const work = scratchDir("claude-hooks");
  const config = path.join(work, "cfg");
  const id = randomUUID();
  const transcriptDir = path.join(config, "projects", repo.replace(/[^A-Za-z0-9]/g, "-"));
  mkdirSync(transcriptDir, { recursive: true });
  const transcript = path.join(transcriptDir, `${id}.jsonl`);
  writeFileSync(transcript, "");
  // The hook's claude: this process (alive for the whole run), as CLAUDE_PID names it to a real hook.
  const env = { CLAUDE_CONFIG_DIR: config, CLAUDE_PID: String(process.pid) };
  const hook = (event: string, extra: object = {}) =>
    timed(
      [CLI, "hooks", "claude-event"],
      { hook_event_name: event, session_id: id, transcript_path: transcript, cwd: repo, ...extra },
      { cwd: repo, env },
    );
  const bare = () => timed(["-e", "0"], {}, { cwd: repo, env });
  const start = await hook("SessionStart", { source: "startup" });
  const sessions = path.join(repo, ".git", "nudge", "sessions");
  const manifest = () =>
    JSON.parse(
      readFileSync(
        path.join(
          sessions,
          readFileSync(path.join(repo, ".git", "nudge", "claude-ui", id), "utf8").trim(),
          "turns.jsonl",
        ),
        "utf8",
      )
        .trim()
        .split("\n")
        .at(-1)!,
    ) as { type?: string; n?: number };
  type T = { wall: number; cpu: number };
  const rows: Array<{ node: T; prompt: T; preTool: T; stop: T; saved: number }> = [];
  for (let i = 1; i <= turns; i++) {
    progress(`claude hooks, ${files.toLocaleString("en")} files: turn ${i}/${turns}`);
    appendFileSync(path.join(repo, "README.md"), `hand edit ${i}\n`);
    const node = await bare();
    const prompt = await hook("UserPromptSubmit", { prompt: `turn ${i}` });
    const preTool = await hook("PreToolUse", {
      tool_name: "Write",
      tool_input: { file_path: path.join(repo, `w${i}.txt`) },
      tool_use_id: `t${i}`,
    });
    writeFileSync(path.join(repo, `written-${i}.txt`), "x\n");
    appendFileSync(
      transcript,
      [
        { type: "user", message: { role: "user", content: `turn ${i}` }, uuid: randomUUID(), sessionId: id },
        {
          type: "assistant",
          message: { role: "assistant", content: [{ type: "text", text: `done ${i}` }] },
          uuid: randomUUID(),
          sessionId: id,
        },
        { type: "system", subtype: "turn_duration", uuid: randomUUID(), sessionId: id },
      ]
        .map((l) => JSON.stringify(l))
        .join("\n") + "\n",
    );
    const stopAt = performance.now();
    const stop = await hook("Stop", { stop_hook_active: false });
    for (;;) {
      const last = manifest();
      if (last.type === "turn" && last.n === i) break;
      await sleep(10);
    }
    rows.push({ node, prompt, preTool, stop, saved: performance.now() - stopAt });
  }
  await hook("SessionEnd", { reason: "prompt_input_exit" });
  const m = (k: "node" | "prompt" | "preTool" | "stop") => ({
    wall: median(rows.slice(1).map((r) => r[k].wall)),
    cpu: median(rows.slice(1).map((r) => r[k].cpu)),
  });
  return {
    files,
    start,
    node: m("node"),
    prompt: m("prompt"),
    preTool: m("preTool"),
    stop: m("stop"),
    saved: median(rows.slice(1).map((r) => r.saved)),
  };
}

const turns = Number(process.argv[2] ?? 6);
const sizes = process.argv.slice(3).map(Number);
const results = [];
for (const files of sizes.length ? sizes : [1_000, 10_000, 100_000]) results.push(await measure(files, turns));
console.log(
  "Each cell: wall time / CPU time (the process and its git children), medians; `node -e 0` is what any command hook costs.\n",
);
console.log(
  "| files | bare `node -e 0` | UserPromptSubmit | PreToolUse | Stop (the hook) | Stop → turn saved (wall) | SessionStart (turn 0, wall) |",
);
console.log("|---|---|---|---|---|---|---|");
const ms = (v: { wall: number; cpu: number }) => `${v.wall.toFixed(0)} / ${v.cpu.toFixed(0)} ms`;
for (const r of results)
  console.log(
    `| ${r.files.toLocaleString("en")} | ${ms(r.node)} | ${ms(r.prompt)} | ${ms(r.preTool)} | ${ms(r.stop)} | ${r.saved.toFixed(0)} ms | ${r.start.wall.toFixed(0)} ms |`,
  );
