/**
 * A turn of claude's own UI as a person feels it, with nudge under it and without: the real
 * claude in a real terminal (tmux) against the scripted API, `nudge claude run --tui` ÷ plain
 * `claude`, alternating (the order rotating each round) in the same repository in the same run;
 * and, to tell claude's own cost of hooks from nudge's work, plain claude with the same events
 * hooked to a loopback server that answers at once (`hooks`). Each turn: the
 * person edits a file by hand, types a prompt; claude writes a file (Write), then answers.
 * Measured: from the prompt's Enter to the turn's end in claude's transcript (its
 * `turn_duration` line, written once the Stop hooks have answered), polled every 5 ms.
 *
 *   npm run bench -- --only=tui 1000 10000          (sizes as for the other sections)
 *   npm run bench -- --only=tui --tui-rounds=5 --tui-turns=6 --tui-pause=300   (300 ms between turns: back to back)
 */
import { execFileSync } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, promises as fs, writeFileSync } from "node:fs";
import path from "node:path";
import { CLAUDE_BIN } from "../test/support/claude-env.js";
import { startScriptedApi, type ScriptStep } from "../test/support/scripted-api.js";
import { tuiEnv } from "../test/support/tui-config.js";
import { shellQuote } from "../src/base/shell-quote.js";
import { generateRepo, git, scratchDir } from "./repo.js";
import { fmtMs, fmtRatio, median, progress, sleep } from "./stats.js";

export interface TuiTurnsResult {
  files: number;
  rounds: number;
  turns: number;
  pauseMs: number;
  /** Every measured turn's time, per variant. */
  nudge: number[];
  plain: number[];
  hooks: number[];
  /** Per round: the median turn under nudge ÷ the median turn of plain claude in that round. */
  ratios: number[];
  /** Where a turn's time goes, per variant: Enter → claude's first request, → its second (the tool ran), → the turn's end. */
  phases: Record<Variant, Phases[]>;
}

type Variant = "nudge" | "plain" | "hooks";
const VARIANTS: Variant[] = ["nudge", "plain", "hooks"];

type Phases = [prompt: number, tool: number, end: number];

const CLI = path.resolve(process.env.BENCH_CLI ?? "dist/nudge.mjs");
const CLAUDE_ARGS = ["--permission-mode", "acceptEdits"];
let sockets = 0;

/** `pauseMs`: between a turn's end and the next hand edit and prompt (a person reading the answer). */
export async function tuiTurnsBench(
  fileCounts: number[],
  rounds = 3,
  turns = 5,
  pauseMs = 2000,
): Promise<TuiTurnsResult[]> {
  const out: TuiTurnsResult[] = [];
  for (const files of fileCounts) {
    progress(`tui turns, ${files.toLocaleString("en")} files: generating the repository`);
    const repo = await generateRepo({ files });
    const result: TuiTurnsResult = {
      files,
      rounds,
      turns,
      pauseMs,
      nudge: [],
      plain: [],
      hooks: [],
      ratios: [],
      phases: { nudge: [], plain: [], hooks: [] },
    };
    // Round -1 warms both up (claude's own caches, nudge's first check of the repository); not counted.
    for (let round = -1; round < rounds; round++) {
      const order = VARIANTS.map((_, i) => VARIANTS[(i + Math.max(round, 0)) % VARIANTS.length]!);
      const medians: Record<string, number> = {};
      for (const variant of order) {
        progress(`tui turns, ${files.toLocaleString("en")} files: round ${round + 1}/${rounds}, ${variant}`);
        const phases = await session(repo, variant, turns, pauseMs);
        await reset(repo);
        const times = phases.map(([a, b, c]) => a + b + c);
        medians[variant] = median(times);
        if (round >= 0) {
          result[variant].push(...times);
          result.phases[variant].push(...phases);
        }
      }
      if (round >= 0) result.ratios.push(medians.nudge! / medians.plain!);
    }
    out.push(result);
  }
  return out;
}

export function tuiTurnsReport(results: TuiTurnsResult[]): string[] {
  if (results.length === 0) return [];
  const lines = [
    "",
    "### A turn in claude's own UI: `nudge claude run --tui` ÷ plain `claude` (real claude in tmux, scripted API)",
    "",
    "| files | turns (rounds × turns) | plain claude, median | claude + no-op hooks | under nudge, median | + per turn | ratio, median of rounds (min–max) |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const r of results) {
    const [plain, hooks, nudge] = [median(r.plain), median(r.hooks), median(r.nudge)];
    const lo = Math.min(...r.ratios);
    const hi = Math.max(...r.ratios);
    lines.push(
      `| ${r.files.toLocaleString("en")} | ${r.nudge.length} (${r.rounds} × ${r.turns}) | ${fmtMs(plain)} | ${fmtMs(hooks)} | ${fmtMs(nudge)} | ${fmtMs(nudge - plain)} | ${fmtRatio(median(r.ratios))} (${fmtRatio(lo)}–${fmtRatio(hi)}) |`,
    );
  }
  lines.push(
    "",
    `A turn: a hand edit, a typed prompt, a Write, an answer; timed from Enter to the turn's end line in claude's transcript; ${results[0]!.pauseMs} ms from a turn's end to the next edit.`,
    "Where it goes (medians, plain / no-op hooks / under nudge): Enter → claude's first API request · → its second (the Write done) · → the turn's end line",
  );
  for (const r of results) {
    const part = (i: number) =>
      (["plain", "hooks", "nudge"] as const).map((v) => fmtMs(median(r.phases[v].map((p) => p[i]!)))).join(" / ");
    lines.push(`- ${r.files.toLocaleString("en")} files: ${[0, 1, 2].map(part).join(" · ")}`);
  }
  return lines;
}

/** One session of `turns` turns in a fresh terminal; each turn's phases in ms. */
async function session(repo: string, variant: Variant, turns: number, pauseMs: number): Promise<Phases[]> {
  const steps: ScriptStep[] = [];
  for (let i = 0; i < turns; i++)
    steps.push(
      { tool: "Write", input: { file_path: path.join(repo, `written-${i}.txt`), content: `turn ${i}\n` } },
      { text: `turn ${i} done` },
    );
  const api = await startScriptedApi(steps);
  const config = scratchDir("tui-cfg");
  const env = tuiEnv(api, config, repo);
  const noop = variant === "hooks" ? await noopHooks(config) : null;
  const argv =
    variant === "nudge"
      ? ["node", CLI, "claude", "run", "--tui", ...CLAUDE_ARGS]
      : [CLAUDE_BIN, ...CLAUDE_ARGS, ...(noop ? ["--settings", noop.settings] : [])];
  const term = new Tmux(repo, argv, env);
  try {
    await term.waitFor(/❯/);
    await sleep(800);
    const times: Phases[] = [];
    for (let i = 0; i < turns; i++) {
      // A person's edit between turns: nudge captures it apart before claude's tool may run.
      writeFileSync(path.join(repo, "src/m0/d0/f1.ts"), `export const v1 = ${i};\n`);
      const enter = await term.type(`turn ${i}`);
      times.push(await turnEnd(config, i + 1, enter, () => api.mainLoopRequests().length - 2 * i));
      await sleep(pauseMs);
    }
    term.keys("/exit", "Enter");
    await term.waitFor(/\[exit \d+\]/, 60_000);
    return times;
  } finally {
    term.close();
    await api.close();
    noop?.server.close();
  }
}

/** The events nudge's `--tui` hooks (UserPromptSubmit, PreToolUse, Stop, StopFailure) as http hooks a loopback server answers at once. */
async function noopHooks(config: string): Promise<{ settings: string; server: http.Server }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const hook = (timeout: number) => [{ matcher: "", hooks: [{ type: "http", url, timeout }] }];
  const hooks = { UserPromptSubmit: hook(10), PreToolUse: hook(60), Stop: hook(10), StopFailure: hook(10) };
  const settings = path.join(config, "noop-hooks.json");
  writeFileSync(settings, JSON.stringify({ hooks }));
  return { settings, server };
}

/** From `started` until claude's transcript holds its `count`-th turn end, in phases by the turn's API requests so far. */
async function turnEnd(config: string, count: number, started: number, asked: () => number): Promise<Phases> {
  const projects = path.join(config, "projects");
  const deadline = started + 60_000;
  const at: number[] = [];
  for (;;) {
    const now = performance.now();
    while (at.length < Math.min(asked(), 2)) at.push(now);
    const text = await transcriptText(projects);
    if (text.split('"subtype":"turn_duration"').length - 1 >= count) {
      const [first = now, second = now] = at;
      return [first - started, second - first, performance.now() - second];
    }
    if (performance.now() > deadline) throw new Error(`turn ${count} never ended (${projects})`);
    await sleep(5);
  }
}

async function transcriptText(projects: string): Promise<string> {
  if (!existsSync(projects)) return "";
  for (const folder of await fs.readdir(projects)) {
    const names = (await fs.readdir(path.join(projects, folder))).filter((n) => n.endsWith(".jsonl"));
    if (names.length === 1) return fs.readFile(path.join(projects, folder, names[0]!), "utf8");
  }
  return "";
}

/** The repository as it was: what a session wrote, and the hand edit, undone (nudge's store is in .git and stays). */
async function reset(repo: string): Promise<void> {
  await git(repo, "checkout", "-q", "--", ".");
  await git(repo, "clean", "-fdq");
}

/** A 120x40 tmux terminal of its own running `argv` in `cwd`. */
class Tmux {
  private readonly socket = `nudge-bench-${process.pid}-${++sockets}`;

  constructor(cwd: string, argv: string[], env: Record<string, string>) {
    const vars = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)}`);
    const line = `env ${vars.join(" ")} ${argv.map(shellQuote).join(" ")}; echo "[exit $?]"; sleep 600`;
    this.tmux("new-session", "-d", "-x", "120", "-y", "40", "-c", cwd, line);
  }

  private tmux(...args: string[]): string {
    return execFileSync("tmux", ["-L", this.socket, "-f", "/dev/null", ...args]).toString();
  }

  keys(...keys: string[]): void {
    this.tmux("send-keys", ...keys);
  }

  /** The text, then Enter a moment later (claude's UI takes a fast Enter as part of a paste); when Enter went. */
  async type(text: string): Promise<number> {
    this.tmux("send-keys", "-l", text);
    await sleep(400);
    const at = performance.now();
    this.tmux("send-keys", "Enter");
    return at;
  }

  async waitFor(pattern: RegExp, ms = 30_000): Promise<void> {
    const end = Date.now() + ms;
    for (;;) {
      const screen = this.tmux("capture-pane", "-p");
      if (pattern.test(screen)) return;
      if (Date.now() > end) throw new Error(`the screen never showed ${pattern}:\n${screen}`);
      await sleep(100);
    }
  }

  close(): void {
    try {
      this.tmux("kill-server");
    } catch {
      // already gone
    }
  }
}
