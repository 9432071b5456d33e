/**
 * `nudge session list` with 2,000 of claude's own sessions of the repository on disk (transcripts
 * nudge never recorded, ~60 KB each, shaped like claude's: bookkeeping, prompts, tool results, a
 * cost record at the end) against the same with none. Warm: the cards are cached (the figure the
 * goal names); cold: the first listing after the cache is removed, which reads every transcript.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { git, scratchDir } from "./repo.js";
import { CLI } from "./session.js";
import { alternate, median, progress, timeProcess } from "./stats.js";

export interface ClaudeSessionsResult {
  sessions: number;
  rounds: number;
  /** Medians in ms. */
  none: number;
  warm: number;
  cold: number;
}

/** One transcript of `cwd`, as claude writes it for a three-prompt session with a tool call each. */
function transcript(cwd: string, id: string, at: number): string {
  const base = { isSidechain: false, userType: "external", cwd, sessionId: id, version: "2.1.329", gitBranch: "main" };
  const time = (k: number) => new Date(at + k * 1000).toISOString();
  const lines: object[] = [{ type: "queue-operation", operation: "enqueue", timestamp: time(0), sessionId: id }];
  for (let p = 0; p < 3; p++) {
    lines.push({
      ...base,
      type: "user",
      message: { role: "user", content: `prompt ${p} of ${id}: make the parser faster` },
      uuid: randomUUID(),
      timestamp: time(p * 10),
    });
    lines.push({
      ...base,
      type: "attachment",
      attachment: { type: "prompt_snapshot", systemPrompt: ["x".repeat(12_000)] },
      timestamp: time(p * 10 + 1),
    });
    lines.push({
      ...base,
      type: "assistant",
      message: {
        model: "claude-opus-5-5",
        role: "assistant",
        content: [{ type: "tool_use", id: `toolu_${p}`, name: "Bash", input: { command: "npm test" } }],
      },
      timestamp: time(p * 10 + 2),
    });
    lines.push({
      ...base,
      type: "user",
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: `toolu_${p}`, content: "ok ".repeat(2_000) }],
      },
      timestamp: time(p * 10 + 3),
    });
    lines.push({
      ...base,
      type: "assistant",
      message: {
        model: "claude-opus-5-5",
        role: "assistant",
        content: [{ type: "text", text: "Done: the tests pass." }],
      },
      timestamp: time(p * 10 + 4),
    });
  }
  lines.push({ type: "last-prompt", lastPrompt: `prompt 2 of ${id}`, sessionId: id });
  lines.push({ type: "cost-state", sessionId: id, totalCostUSD: 0.42, totalDuration: 61_000 });
  return lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
}

export async function claudeSessionsBench(count: number, rounds: number): Promise<ClaudeSessionsResult> {
  progress(`claude's own sessions: a repository with ${count.toLocaleString("en")} of them on disk, and one with none`);
  const repo = scratchDir("claude-own-repo");
  mkdirSync(repo, { recursive: true });
  await git(repo, "init", "-q", "-b", "main");
  await git(repo, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "--allow-empty", "-m", "first");
  const empty = scratchDir("claude-config-empty");
  const full = scratchDir("claude-config-full");
  mkdirSync(path.join(empty, "projects"), { recursive: true });
  const folder = path.join(full, "projects", repo.replace(/[^A-Za-z0-9]/g, "-"));
  mkdirSync(folder, { recursive: true });
  const start = Date.parse("2026-01-01T00:00:00Z");
  for (let i = 0; i < count; i++) {
    const id = randomUUID();
    writeFileSync(path.join(folder, `${id}.jsonl`), transcript(repo, id, start + i * 60_000));
  }
  const list = (config: string) => async () =>
    (
      await timeProcess(process.execPath, [CLI, "session", "list"], {
        cwd: repo,
        env: { ...process.env, CLAUDE_CONFIG_DIR: config, NO_COLOR: "1" },
      })
    ).ms;
  // The cache's index and cards files (claude-sessions-<hash of the config dir>.*).
  const store = path.join(repo, ".git", "nudge");
  const dropCache = () => {
    for (const f of readdirSync(store, { withFileTypes: true }))
      if (f.name.startsWith("claude-sessions-")) rmSync(path.join(store, f.name), { force: true });
  };
  const cold: number[] = [];
  for (let i = 0; i < 3; i++) {
    if (existsSync(store)) dropCache();
    cold.push(await list(full)());
  }
  const samples = await alternate(rounds, { none: list(empty), warm: list(full) });
  return { sessions: count, rounds, none: median(samples.none!), warm: median(samples.warm!), cold: median(cold) };
}
