/**
 * Huge transcripts of claude's own (a 2 GB one, sparse so it costs no disk, and one holding a
 * 600 MB line) break no command that reads them: list, show, replay and adopt each end in
 * bounded time with a clear word, never a stack trace.
 */
import { closeSync, ftruncateSync, mkdirSync, openSync, writeSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { encodeProjectDir } from "../../src/claude/transcript.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";

let repo: string;
let env: Record<string, string>;
const big = "0b16b16b-0000-4000-8000-000000000000"; // 2 GB
const line = "0b1911e0-0000-4000-8000-000000000000"; // a 600 MB line between two records

/** A transcript whose first record is a prompt of `repo`, then `hole` bytes of nothing (sparse), then `tail`. */
function sparse(file: string, id: string, hole: number, tail: string): void {
  const first = JSON.stringify({
    type: "user",
    message: { role: "user", content: `before the hole of ${id}` },
    cwd: repo,
    sessionId: id,
    timestamp: "2026-01-02T00:00:00Z",
  });
  const fd = openSync(file, "w");
  writeSync(fd, first + "\n");
  ftruncateSync(fd, first.length + 1 + hole);
  writeSync(fd, tail, first.length + 1 + hole);
  closeSync(fd);
}

beforeAll(async () => {
  repo = await gitdir();
  const config = path.join(tempDir(), "claude");
  const folder = path.join(config, "projects", encodeProjectDir(repo));
  mkdirSync(folder, { recursive: true });
  env = { CLAUDE_CONFIG_DIR: config };
  const after = (id: string) =>
    "\n" +
    JSON.stringify({
      type: "user",
      message: { role: "user", content: "after the hole" },
      cwd: repo,
      sessionId: id,
      timestamp: "2026-01-03T00:00:00Z",
    }) +
    "\n";
  sparse(path.join(folder, `${big}.jsonl`), big, 2 * 1024 ** 3, after(big));
  // The hole is one line of NUL bytes: 600 MB without a newline.
  sparse(path.join(folder, `${line}.jsonl`), line, 600 * 1024 ** 2, after(line));
});

const nudge = (args: string[]) => runNudge(args, { cwd: repo, env, timeout: 60_000 });

describe("huge transcripts of claude's own", () => {
  it("list, show, replay and adopt each end in bounded time, saying what they left out", async () => {
    const started = Date.now();
    const list = await nudge(["session", "list", "--json"]);
    expect(list.exitCode, list.stderr).toBe(0);
    const rows = JSON.parse(list.stdout) as Array<{ id: string; firstPrompt: string | null; turns: number | null }>;
    expect(rows.map((r) => r.id).sort()).toEqual([big, line].sort());
    expect(rows.find((r) => r.id === big)).toMatchObject({ firstPrompt: `before the hole of ${big}`, turns: null });
    for (const id of [big, line]) {
      const show = await nudge(["session", "show", id.slice(0, 8)]);
      expect(show.exitCode, show.stderr).toBe(0);
      expect(show.stdout).toMatch(/\n1\s+before the hole/);
      expect(show.stderr).toContain("only its first part is read");
      const replay = await nudge(["session", "replay", id.slice(0, 8)]);
      expect(replay.exitCode, replay.stderr).toBe(0);
      expect(replay.stdout).toContain(`before the hole of ${id}`);
      expect(show.stderr + replay.stderr).not.toMatch(/\n\s+at /);
    }
    // Too large to adopt whole: refused in a line, with where to read it instead.
    const adopt = await nudge(["session", "adopt", big.slice(0, 8)]);
    expect(adopt.exitCode).toBe(1);
    expect(adopt.stderr).toMatch(/too large to adopt \([\d,]+ bytes; at most [\d,]+\)/);
    expect(adopt.stderr).toContain(`hint: read it where it is: nudge session show ${big.slice(0, 8)}`);
    // The 600 MB line is read past, not held: adopted, its turns kept.
    const adoptLine = await nudge(["session", "adopt", line.slice(0, 8)]);
    expect(adoptLine.stderr).not.toMatch(/\n\s+at /);
    expect(adoptLine.exitCode, adoptLine.stderr).toBeLessThan(2);
    expect(Date.now() - started).toBeLessThan(120_000);
  }, 180_000);
});
