/**
 * nudge's caches in the store (the claude ids its bundles hold, the cards of claude's own
 * sessions) are read as untrusted: a FIFO, a folder or a huge file put in a cache's place is no
 * cache, made again, never a command that hangs on it.
 */
import { execa } from "execa";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitdir, tempDir } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";

describe("a cache file that is not a file", () => {
  it("is made again: a FIFO in place of claude-ids.json or of claude's sessions' cards hangs no search or list", async () => {
    const repo = await gitdir();
    const config = tempDir();
    const folder = path.join(config, "projects", repo.replace(/[^A-Za-z0-9]/g, "-"));
    mkdirSync(folder, { recursive: true });
    const id = "fe0f0000-0000-4000-8000-000000000000";
    const line = (o: object) => JSON.stringify({ cwd: repo, sessionId: id, ...o });
    writeFileSync(
      path.join(folder, `${id}.jsonl`),
      [
        line({
          type: "user",
          message: { role: "user", content: "a question about quetzals" },
          timestamp: "2026-11-20T10:00:00Z",
        }),
        line({ type: "assistant", message: { role: "assistant", content: [{ type: "text", text: "answered" }] } }),
      ].join("\n") + "\n",
    );
    const nudge = (args: string[]) =>
      runNudge(args, { cwd: repo, env: { CLAUDE_CONFIG_DIR: config }, timeout: 30_000 });
    expect((await nudge(["session", "list"])).exitCode).toBe(0); // the caches written once
    const store = path.join(repo, ".git", "nudge");
    const cards = readdirSync(store).filter((n) => n.endsWith(".cards"));
    expect(cards.length).toBeGreaterThan(0);
    for (const name of [...cards, "claude-ids.json"]) {
      rmSync(path.join(store, name), { force: true });
      await execa("mkfifo", [path.join(store, name)]);
    }
    const list = await nudge(["session", "list"]);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.stdout).toContain(id.slice(0, 8));
    const search = await nudge(["session", "search", "quetzals"]);
    expect(search.timedOut).toBeFalsy();
    expect(search.exitCode, search.stderr).toBeLessThan(2);
  }, 120_000);
});
