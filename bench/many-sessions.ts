/**
 * nudge with thousands of sessions in its store (issue 24): `nudge claude run` to its first prompt
 * at 5,000 sessions against the same at one, and `nudge session list` (its first screen, and
 * `--all --json`) at 1, 1,000 and 5,000 sessions against `node -e 0`. The many sessions are copies
 * of one real recorded session's header and journal under new ids and start times (what a listing
 * and a start-up read of them is the same as for recorded ones; their snapshots are not needed).
 * A rewind (the recorded session's one turn undone and redone) at 5,000 sessions against the same
 * at one: a rewind looks for a claude still running in the work tree, in every session.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { generateRepo, scratchDir } from "./repo.js";
import { CLI, claudeConfig, prompts, runSession } from "./session.js";
import { alternate, median, nowNs, progress, timeProcess } from "./stats.js";

export interface ManySessionsResult {
  rounds: number;
  many: number;
  /** Medians in ms. */
  node: number;
  list: { sessions: number; page: number; allJson: number }[];
  run: { one: number; many: number };
  /** `session rewind` to turn 0 and back to turn 1 (their mean), in the repository with one session and in the one with `many`. */
  rewind: { one: number; many: number };
}

/** Copies of a recorded session in `store` (its `sessions/` folder), `count` of them, one minute apart. */
export function fillStore(store: string, template: string, count: number): void {
  const header = JSON.parse(readFileSync(path.join(template, "manifest.json"), "utf8")) as Record<string, unknown>;
  const journal = readFileSync(path.join(template, "turns.jsonl"));
  const start = Date.parse("2025-01-01T00:00:00Z");
  for (let i = 0; i < count; i++) {
    const id = randomBytes(5).toString("hex");
    const dir = path.join(store, "sessions", id);
    mkdirSync(dir, { recursive: true });
    const at = new Date(start + i * 60_000).toISOString();
    writeFileSync(path.join(dir, "turns.jsonl"), journal);
    writeFileSync(
      path.join(dir, "manifest.json"),
      JSON.stringify({ ...header, id, createdAt: at, updatedAt: at }, null, 2) + "\n",
    );
  }
}

/** A repository with one recorded session, and the path of that session's bundle. */
async function repoWithOneSession(): Promise<{ repo: string; bundle: string }> {
  const repo = await generateRepo({ files: 1_000 });
  const run = await runSession(repo, prompts(repo, 1, "small"));
  return { repo, bundle: path.join(repo, ".git", "nudge", "sessions", run.id) };
}

/** From launch to the stand-in claude reading the first prompt (the monotonic clock both share); the session is then removed, so the store keeps its size. */
async function toFirstPrompt(repo: string): Promise<number> {
  const start = nowNs();
  const run = await runSession(repo, prompts(repo, 1, "small"));
  const first = run.records.find((r) => r.type === "prompt");
  if (!first || first.type !== "prompt") throw new Error("the stand-in never got a prompt");
  rmSync(path.join(repo, ".git", "nudge", "sessions", run.id), { recursive: true, force: true });
  rmSync(path.join(repo, ".git", "nudge", "index", run.id), { force: true });
  return Number(BigInt(first.t) - start) / 1e6;
}

/** `nudge session rewind <id> 0 --yes`, then back to turn 1: the mean of the two. */
async function rewindThereAndBack(r: { repo: string; bundle: string }): Promise<number> {
  const id = path.basename(r.bundle);
  const env = { ...process.env, CLAUDE_CONFIG_DIR: claudeConfig() };
  const there = await timeProcess(process.execPath, [CLI, "session", "rewind", id, "0", "--yes"], { cwd: r.repo, env });
  const back = await timeProcess(process.execPath, [CLI, "session", "rewind", id, "1", "--yes"], { cwd: r.repo, env });
  return (there.ms + back.ms) / 2;
}

export async function manySessions(many: number, rounds: number): Promise<ManySessionsResult> {
  progress(
    `many sessions: two repositories with one recorded session each; ${many.toLocaleString("en")} copies of it added to one`,
  );
  const one = await repoWithOneSession();
  const full = await repoWithOneSession();
  fillStore(path.join(full.repo, ".git", "nudge"), full.bundle, many - 1);
  const counts = [1, 1_000, many];
  const stores = new Map<number, string>();
  for (const n of counts) {
    const store = scratchDir(`store-${n}`);
    fillStore(store, one.bundle, n);
    stores.set(n, store);
  }
  const env = (store?: string) => ({
    ...process.env,
    CLAUDE_CONFIG_DIR: claudeConfig(),
    ...(store ? { NUDGE_STORE: store } : {}),
  });
  const list = (n: number, args: string[]) => async () =>
    (await timeProcess(process.execPath, [CLI, "session", "list", ...args], { cwd: one.repo, env: env(stores.get(n)) }))
      .ms;
  progress(
    `many sessions: ${rounds} rounds of node -e 0, session list (first screen, --all --json) at ${counts.join(", ")} sessions, claude run to its first prompt and session rewind at 1 and ${many}`,
  );
  const runs: Record<string, () => Promise<number>> = {
    node: async () => (await timeProcess(process.execPath, ["-e", "0"], { cwd: one.repo, env: env() })).ms,
    runOne: () => toFirstPrompt(one.repo),
    runMany: () => toFirstPrompt(full.repo),
    rewindOne: () => rewindThereAndBack(one),
    rewindMany: () => rewindThereAndBack(full),
  };
  for (const n of counts) {
    runs[`page${n}`] = list(n, []);
    runs[`all${n}`] = list(n, ["--all", "--json"]);
  }
  const s = await alternate(rounds, runs);
  return {
    rounds,
    many,
    node: median(s.node!),
    list: counts.map((n) => ({ sessions: n, page: median(s[`page${n}`]!), allJson: median(s[`all${n}`]!) })),
    run: { one: median(s.runOne!), many: median(s.runMany!) },
    rewind: { one: median(s.rewindOne!), many: median(s.rewindMany!) },
  };
}
