/**
 * The first search index of claude's own sessions: ~1 GB of transcripts claude wrote for this
 * repository (nudge recorded none), then `nudge session search` as a user runs it. The first
 * search starts the indexer in the background and answers at once; searches every second
 * meanwhile (timed: each answers from what is indexed and says how much is left) until one says
 * nothing is. Seeded text of made-up and English words, as the search bench's corpus.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { git, scratchDir } from "./repo.js";
import { CLI } from "./session.js";
import { median, msSince, nowNs, progress } from "./stats.js";

export interface ClaudeIndexResult {
  sessions: number;
  bytes: number;
  /** From the first search to the first that says nothing is left. */
  buildMs: number;
  /** Answer times of the searches meanwhile (ms). */
  meanwhile: { median: number; max: number; samples: number };
  /** The search once everything is indexed (ms), and whether it found the planted word. */
  afterMs: number;
  found: boolean;
}

const RARE = "quasarwombat";
const WORDS =
  "the a to of and in is it that for on with as this was be by not are from parse token cache build config server client retry login timeout import export module test error".split(
    " ",
  );

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One transcript of `cwd` as claude writes it: ten prompts, each a Bash call with a long output, then a text. */
function transcript(cwd: string, id: string, at: number, random: () => number, plant: boolean): string {
  const word = () =>
    random() < 0.5
      ? WORDS[Math.floor(random() * WORDS.length)]!
      : `w${Math.floor(60_000 * random() ** 3).toString(36)}`;
  const text = (n: number) => Array.from({ length: n }, word).join(" ");
  const base = { isSidechain: false, userType: "external", cwd, sessionId: id, version: "2.1.329", gitBranch: "main" };
  const time = (k: number) => new Date(at + k * 1000).toISOString();
  const lines: object[] = [];
  for (let p = 0; p < 10; p++) {
    const prompt = `${text(12)}${plant && p === 4 ? ` ${RARE}` : ""}`;
    lines.push({
      ...base,
      type: "user",
      message: { role: "user", content: prompt },
      uuid: randomUUID(),
      timestamp: time(p * 10),
    });
    lines.push({
      ...base,
      type: "assistant",
      message: {
        role: "assistant",
        content: [{ type: "tool_use", id: `toolu_${p}`, name: "Bash", input: { command: `npm test -- ${word()}` } }],
      },
      uuid: randomUUID(),
      timestamp: time(p * 10 + 2),
    });
    lines.push({
      ...base,
      type: "user",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${p}`, content: text(14_000) }] },
      uuid: randomUUID(),
      timestamp: time(p * 10 + 3),
    });
    lines.push({
      ...base,
      type: "assistant",
      message: { role: "assistant", content: [{ type: "text", text: text(60) }] },
      uuid: randomUUID(),
      timestamp: time(p * 10 + 4),
    });
  }
  return lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
}

export async function claudeIndexBench(megabytes: number): Promise<ClaudeIndexResult> {
  const repo = scratchDir("claude-index-repo");
  mkdirSync(repo, { recursive: true });
  await git(repo, "init", "-q", "-b", "main");
  await git(repo, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "--allow-empty", "-m", "first");
  const config = scratchDir("claude-index-config");
  const folder = path.join(config, "projects", repo.replace(/[^A-Za-z0-9]/g, "-"));
  mkdirSync(folder, { recursive: true });
  progress(`claude's own sessions: writing ${megabytes} MB of transcripts`);
  const random = rng(7);
  const start = Date.parse("2026-01-01T00:00:00Z");
  let bytes = 0;
  let sessions = 0;
  while (bytes < megabytes * 1e6) {
    const id = randomUUID();
    const body = transcript(repo, id, start + sessions * 3_600_000, random, sessions % 50 === 7);
    writeFileSync(path.join(folder, `${id}.jsonl`), body);
    bytes += Buffer.byteLength(body);
    sessions++;
  }
  const env = { ...process.env, CLAUDE_CONFIG_DIR: config, NO_COLOR: "1" };
  const search = () => {
    const t = nowNs();
    const run = spawnSync(process.execPath, [CLI, "session", "search", "--limit", "5", RARE], { cwd: repo, env });
    return { ms: msSince(t), stderr: run.stderr.toString(), stdout: run.stdout.toString() };
  };
  progress(`claude's own sessions: the first index of ${sessions} transcripts, in the background`);
  const began = nowNs();
  const answers: number[] = [];
  for (;;) {
    const run = search();
    if (!/not indexed yet/.test(run.stderr)) break;
    answers.push(run.ms);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const buildMs = msSince(began);
  while (existsSync(path.join(repo, ".git", "nudge", "search", "claude-indexer.pid")))
    await new Promise((resolve) => setTimeout(resolve, 200));
  const after = search();
  return {
    sessions,
    bytes,
    buildMs,
    meanwhile: { median: median(answers), max: Math.max(0, ...answers), samples: answers.length },
    afterMs: after.ms,
    found: after.stdout.includes(RARE),
  };
}
