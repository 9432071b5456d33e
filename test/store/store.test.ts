import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MANIFEST_FORMAT, type Manifest } from "../../src/store/manifest-schema.js";
import {
  liveClaudes,
  readHeader,
  resolveSession,
  sessionState,
  writeBundle,
  type Store,
} from "../../src/store/store.js";
import { processStart } from "../../src/store/locks.js";
import { summaryOf } from "../../src/store/summary.js";
import { tempDir } from "../support/gitdir.js";

function manifest(id: string, createdAt: string): Manifest {
  return {
    format: MANIFEST_FORMAT,
    id,
    createdAt,
    updatedAt: createdAt,
    state: "complete",
    repo: { root: "/r", cwd: "/r", baseCommit: null, branch: "main" },
    claude: { version: null, model: null },
    parent: null,
    resume: null,
    rewoundTo: null,
    summary: summaryOf([]),
    turns: [],
    unsaved: [],
  };
}

async function storeWith(ids: string[], state: Manifest["state"] = "complete"): Promise<Store> {
  const dir = tempDir();
  for (const [i, id] of ids.entries()) {
    mkdirSync(path.join(dir, "sessions", id), { recursive: true });
    await writeBundle(path.join(dir, "sessions", id), { ...manifest(id, `2026-11-2${i % 10}T00:00:00.000Z`), state });
  }
  return { repoRoot: "/r", commonDir: "/r/.git", gitDir: "/r/.git", dir, ownDirs: [] };
}

describe("resolveSession", () => {
  it("takes a full id or a unique prefix", async () => {
    const store = await storeWith(["abc1230000", "abd4560000"]);
    expect((await resolveSession(store, "abc")).manifest.id).toBe("abc1230000");
    expect((await resolveSession(store, "abd4560000")).manifest.id).toBe("abd4560000");
  });

  it("lists the candidates when a prefix is ambiguous, and says how to see them all when none match", async () => {
    const store = await storeWith(["abc1230000", "abd4560000"]);
    await expect(resolveSession(store, "ab")).rejects.toMatchObject({
      message: expect.stringMatching(/"ab" is ambiguous: (abc1230000, abd4560000|abd4560000, abc1230000)/),
      hint: "type more of the id",
    });
    await expect(resolveSession(store, "zz")).rejects.toMatchObject({
      message: 'no session matches "zz"',
      hint: "list the sessions with: nudge session list",
    });
  });
});

describe("liveClaudes", () => {
  it("finds, among many sessions without a lock, the one being recorded and the one whose nudge died with its claude still running", async () => {
    const ids = Array.from({ length: 300 }, (_, i) => `a${String(i).padStart(9, "0")}`);
    const store = await storeWith(ids, "recording");
    const claude = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      const lock = (id: string, info: object) =>
        writeFileSync(
          path.join(store.dir, "sessions", id, "lock"),
          JSON.stringify({ host: os.hostname(), claude: null, ...info }),
        );
      const gone = { pid: 2 ** 22 + 17, started: null };
      lock(ids[17]!, { owner: { pid: process.pid, started: processStart(process.pid) } });
      lock(ids[250]!, { owner: gone, claude: { pid: claude.pid!, started: processStart(claude.pid!) } });
      // Stale locks: owner and claude gone, or a lock that cannot be read.
      lock(ids[3]!, { owner: gone, claude: gone });
      writeFileSync(path.join(store.dir, "sessions", ids[4]!, "lock"), "{not json");
      const live = await liveClaudes(store);
      expect(live.sort((a, b) => a.id.localeCompare(b.id))).toEqual([
        { id: ids[17], root: "/r", orphanPid: null, claudeUi: false },
        { id: ids[250], root: "/r", orphanPid: claude.pid, claudeUi: false },
      ]);
    } finally {
      claude.kill("SIGKILL");
    }
  });
});

describe("sessionState", () => {
  it("a header read just before the session's closing process finished is not called cut off; one nothing changed since is", async () => {
    const store = await storeWith(["abc1230000"], "recording");
    const dir = path.join(store.dir, "sessions", "abc1230000");
    const seen = await readHeader(dir); // "recording"; no lock: whoever recorded it is gone
    expect(await sessionState(dir, seen)).toBe("crashed");
    // The closing process ends now: the header says complete, its lock and notes are gone.
    await writeBundle(dir, {
      ...manifest("abc1230000", "2026-11-20T00:00:00.000Z"),
      updatedAt: "2026-11-20T00:00:01.000Z",
    });
    expect(await sessionState(dir, seen)).toBe("recording");
    expect(await sessionState(dir, await readHeader(dir))).toBe("complete");
  });
});
