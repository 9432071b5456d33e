/**
 * The store's change log lets a search of a store where no session was added or removed look only
 * at the sessions noted since the last one. What it must never do is hide a change: a turn whose
 * record was appended by a nudge killed before it wrote the header (nothing but the journal's
 * append noted it), and a transcript copy added to a bundle (the claude ids nudge holds). The
 * sessions folder is dated back first: a folder changed within the last seconds is never trusted.
 */
import Database from "better-sqlite3";
import { readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { knownClaudeIds } from "../../src/live/claude-own-sessions.js";
import { openStore, readHeader, writeHeader } from "../../src/store/store.js";
import { claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { runClaude } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { until } from "../support/until.js";

let api: ScriptedApi | undefined;
afterAll(() => api?.close());

const backdate = (dir: string) => {
  const hourAgo = new Date(Date.now() - 3_600_000);
  utimesSync(dir, hourAgo, hourAgo);
};

describe("the store's change log", () => {
  it("brings a turn saved, and a transcript copy added, since the last search into the next one", async () => {
    const repo = await gitdir();
    const sessions = () => path.join(repo, ".git", "nudge", "sessions");
    api = await startScriptedApi([{ text: "The first answer." }, { text: "The quetzal answer." }]);
    const release = path.join(tempDir(), "release");
    const env = {
      ...claudeEnv(api, path.join(tempDir(), "cfg")),
      NUDGE_FAULT: "after-snapshot:hold@2,after-turn-record:kill@3",
      NUDGE_FAULT_RELEASE: release,
    };
    const run = runClaude(repo, [], env, "first question\nsecond question\n");
    const id = await until("the first turn's header", async () => {
      try {
        const [name] = readdirSync(sessions());
        const header = JSON.parse(readFileSync(path.join(sessions(), name!, "manifest.json"), "utf8"));
        return header.summary.turns === 1 ? (name as string) : undefined;
      } catch {
        return undefined;
      }
    });
    backdate(sessions());
    const before = await runNudge(["session", "search", "first", "--json"], { cwd: repo });
    expect(before.exitCode, before.stderr).toBe(0);
    // The search kept the store's mark: the next one looks only at what the log notes since.
    const db = new Database(path.join(repo, ".git", "nudge", "search", "index.sqlite"), { readonly: true });
    try {
      expect(db.prepare("SELECT value FROM meta WHERE key = 'mark'").get()).toBeDefined();
    } finally {
      db.close();
    }
    // The second turn's record is appended, then nudge is killed: no header, no index update of its own.
    writeFileSync(release, "");
    expect((await run).signal).toBe("SIGKILL");
    const found = await runNudge(["session", "search", "quetzal", "--json"], { cwd: repo });
    expect(found.exitCode, found.stderr).toBe(0);
    expect(JSON.parse(found.stdout).map((h: { session: string; turn: number }) => [h.session, h.turn])).toContainEqual([
      id,
      2,
    ]);

    // A transcript copy added to a bundle is brought into the claude ids nudge holds.
    const store = await openStore(repo);
    backdate(sessions());
    const held = await knownClaudeIds(store, { cache: true });
    expect(held.size).toBeGreaterThan(0);
    const added = "0f0e0d0c-0b0a-4909-8807-060504030201";
    const dir = path.join(sessions(), id);
    writeFileSync(path.join(dir, "claude", `${added}.jsonl`), "");
    expect((await knownClaudeIds(store, { cache: true })).has(added)).toBe(false); // not noted yet: the cache is used
    // An adoption or an import of a transcript ends by writing the session's header.
    await writeHeader(dir, await readHeader(dir));
    expect([...(await knownClaudeIds(store, { cache: true }))].sort()).toEqual([...held, added].sort());

    // A damaged cache (a name no transcript has, an id dropped) is never trusted: made again from the folders.
    const cacheFile = path.join(repo, ".git", "nudge", "claude-ids.json");
    const cache = JSON.parse(readFileSync(cacheFile, "utf8"));
    writeFileSync(cacheFile, JSON.stringify({ ...cache, sessions: { [id]: ["../not-an-id"] } }));
    expect([...(await knownClaudeIds(store, { cache: true }))].sort()).toEqual([...held, added].sort());
  }, 120_000);
});
