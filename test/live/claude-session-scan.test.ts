/**
 * The cache behind the listing of claude's own sessions: a transcript claude appended to (a
 * resumed session) is read again, one unchanged is not; a lost cards file or an older index
 * costs a re-read, never a session missing; the early stats of the repository's folders are the
 * ones the listing uses.
 */
import {
  appendFileSync,
  mkdirSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { earlyFolderStats } from "../../src/live/claude-folder-stats.js";
import { scanClaudeSessions } from "../../src/live/claude-session-scan.js";
import { encodeProjectDir } from "../../src/claude/transcript.js";
import { tempDir } from "../support/gitdir.js";

const line = (cwd: string, id: string, prompt: string, at: string) =>
  JSON.stringify({ type: "user", message: { role: "user", content: prompt }, cwd, sessionId: id, timestamp: at }) +
  "\n";

/** A claude folder with `n` transcripts of `cwd`, each one prompt, the later ones newer. */
function claudeFolder(cwd: string, n: number): { config: string; folder: string; ids: string[] } {
  const config = tempDir("nudge-claude-");
  const folder = path.join(config, "projects", encodeProjectDir(cwd));
  mkdirSync(folder, { recursive: true });
  const ids = Array.from({ length: n }, (_, i) => `0000000${i}-0000-4000-8000-000000000000`);
  ids.forEach((id, i) => {
    const file = path.join(folder, `${id}.jsonl`);
    writeFileSync(file, line(cwd, id, `prompt of ${i}`, `2026-01-0${i + 1}T00:00:00Z`));
    const t = new Date(Date.UTC(2026, 0, i + 1));
    utimesSync(file, t, t);
  });
  return { config, folder, ids };
}

const all = () => true;

describe("the listing's cache of claude's own sessions", () => {
  it("reads a transcript claude appended to (a resumed session) again, and not one left as it was", async () => {
    const cwd = tempDir();
    const cache = tempDir();
    const { config, folder, ids } = claudeFolder(cwd, 3);
    const first = await scanClaudeSessions(config, cache, all);
    expect(first.sessions.map((s) => s.id)).toEqual([ids[2], ids[1], ids[0]]);
    // Changed in place, its size and mtime kept: the cached card stands (nothing re-read).
    const still = path.join(folder, `${ids[1]}.jsonl`);
    const { mtime } = statSync(still);
    writeFileSync(still, line(cwd, ids[1]!, "PROMPT OF 1", "2026-01-02T00:00:00Z"));
    utimesSync(still, mtime, mtime);
    // Resumed: claude appends to the old transcript, which changes no folder's mtime.
    appendFileSync(path.join(folder, `${ids[0]}.jsonl`), line(cwd, ids[0]!, "resumed", "2026-02-01T00:00:00Z"));
    const second = await scanClaudeSessions(config, cache, all);
    expect(second.sessions.map((s) => s.id)).toEqual([ids[0], ids[2], ids[1]]);
    expect(second.sessions[0]).toMatchObject({ turns: 2, firstPrompt: "prompt of 0" });
    expect(second.sessions[2]!.firstPrompt).toBe("prompt of 1");
  });

  it("a lost cards file or an index an older nudge wrote costs a re-read, never a session; stale cards files are removed", async () => {
    const cwd = tempDir();
    const cache = tempDir();
    const { config, ids } = claudeFolder(cwd, 2);
    await scanClaudeSessions(config, cache, all);
    for (const f of readdirSync(cache)) if (f.endsWith(".cards")) rmSync(path.join(cache, f));
    expect((await scanClaudeSessions(config, cache, all)).sessions.map((s) => s.firstPrompt)).toEqual([
      "prompt of 1",
      "prompt of 0",
    ]);
    const index = readdirSync(cache).find((f) => f.endsWith(".json"))!;
    const base = index.slice(0, -".json".length);
    writeFileSync(path.join(cache, `${base}.0ld0ld00.cards`), "{}\n");
    writeFileSync(
      path.join(cache, index),
      JSON.stringify({ version: 4, cards: `${base}.0ld0ld00.cards`, folders: {} }),
    );
    const rebuilt = await scanClaudeSessions(config, cache, all);
    expect(rebuilt.sessions.map((s) => s.id)).toEqual([ids[1], ids[0]]);
    expect(readdirSync(cache).filter((f) => f.endsWith(".cards"))).toHaveLength(1);
  });

  it("a screenful is the newest, newest first, as the whole list sorted has them", async () => {
    const cwd = tempDir();
    const { config, ids } = claudeFolder(cwd, 9);
    const cache = tempDir();
    const every = (await scanClaudeSessions(config, cache, all)).sessions.map((s) => s.id);
    expect(every).toEqual([...ids].reverse());
    const some = await scanClaudeSessions(config, cache, all, { limit: 1 });
    expect({ ids: some.sessions.map((s) => s.id), total: some.total }).toEqual({ ids: [ids[8]], total: 9 });
  });

  it("asks for nudge's own ids (a file to read) only when some transcript is wanted, and leaves those out", async () => {
    const cwd = tempDir();
    const { config, ids } = claudeFolder(cwd, 3);
    let asked = 0;
    const skip = async () => (asked++, new Set([ids[1]!]));
    const none = await scanClaudeSessions(config, tempDir(), (c) => c !== cwd, { skip });
    expect([none.total, asked]).toEqual([0, 0]);
    const some = await scanClaudeSessions(config, tempDir(), all, { skip, limit: 1 });
    expect([some.sessions.map((s) => s.id), some.total, asked]).toEqual([[ids[2]], 2, 1]);
  });

  it("a link among the transcripts is no session (not followed, not counted)", async () => {
    const cwd = tempDir();
    const { config, folder } = claudeFolder(cwd, 1);
    const outside = path.join(tempDir(), "x.jsonl");
    writeFileSync(outside, line(cwd, "11111111-0000-4000-8000-000000000000", "linked", "2026-03-01T00:00:00Z"));
    symlinkSync(outside, path.join(folder, "11111111-0000-4000-8000-000000000000.jsonl"));
    const scan = await scanClaudeSessions(config, tempDir(), all);
    expect(scan.sessions.map((s) => s.firstPrompt)).toEqual(["prompt of 0"]);
    expect(scan.unreadable).toBe(0);
  });

  it("stats early the folders of the repository around a folder, its subfolders' and its worktrees' (by its .git files, no git)", async () => {
    const repo = tempDir();
    const sub = path.join(repo, "src");
    const worktree = path.join(tempDir(), "wt");
    mkdirSync(path.join(repo, ".git", "worktrees", "wt"), { recursive: true });
    mkdirSync(sub);
    mkdirSync(worktree);
    writeFileSync(path.join(repo, ".git", "worktrees", "wt", "gitdir"), path.join(worktree, ".git") + "\n");
    writeFileSync(path.join(repo, ".git", "worktrees", "wt", "commondir"), "../..\n");
    writeFileSync(path.join(worktree, ".git"), `gitdir: ${path.join(repo, ".git", "worktrees", "wt")}\n`);
    const config = tempDir();
    const other = tempDir();
    for (const cwd of [repo, sub, worktree, other]) {
      mkdirSync(path.join(config, "projects", encodeProjectDir(cwd)), { recursive: true });
      writeFileSync(
        path.join(config, "projects", encodeProjectDir(cwd), "a.jsonl"),
        line(cwd, "a", "p", "2026-01-01T00:00:00Z"),
      );
    }
    for (const from of [sub, worktree]) {
      const early = await earlyFolderStats(config, from, {});
      expect([...early.keys()].sort()).toEqual([repo, sub, worktree].map(encodeProjectDir).sort());
      expect((await early.get(encodeProjectDir(repo))!).names).toEqual(["a.jsonl"]);
    }
    // git told where the repository is: no guess.
    expect((await earlyFolderStats(config, sub, { GIT_DIR: "/elsewhere" })).size).toBe(0);
    // And the listing takes its stats from them: a file they do not list is not seen.
    const early = await earlyFolderStats(config, repo, {});
    writeFileSync(
      path.join(config, "projects", encodeProjectDir(repo), "b.jsonl"),
      line(repo, "b", "q", "2026-01-02T00:00:00Z"),
    );
    const scan = await scanClaudeSessions(config, tempDir(), all, { early });
    expect(scan.sessions.filter((s) => s.cwd === repo).map((s) => s.id)).toEqual(["a"]);
  });
});
