import { mkdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MANIFEST_FORMAT, type Manifest } from "../../src/bundle/manifest-schema.js";
import { resolveSession, writeBundle, type Store } from "../../src/bundle/store.js";
import { summaryOf } from "../../src/bundle/summary.js";
import { tempDir } from "../support/gitdir.js";

function manifest(id: string, createdAt: string): Manifest {
  return {
    format: MANIFEST_FORMAT, id, createdAt, updatedAt: createdAt, state: "complete",
    repo: { root: "/r", cwd: "/r", baseCommit: null, branch: "main" }, claude: { version: null, model: null },
    parent: null, resume: null, rewoundTo: null, summary: summaryOf([]), turns: [], unsaved: [],
  };
}

async function storeWith(ids: string[]): Promise<Store> {
  const dir = tempDir();
  for (const [i, id] of ids.entries()) {
    mkdirSync(path.join(dir, "sessions", id), { recursive: true });
    await writeBundle(path.join(dir, "sessions", id), manifest(id, `2026-11-2${i}T00:00:00.000Z`));
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
    await expect(resolveSession(store, "ab")).rejects.toMatchObject({ message: expect.stringMatching(/"ab" is ambiguous: (abc1230000, abd4560000|abd4560000, abc1230000)/), hint: "type more of the id" });
    await expect(resolveSession(store, "zz")).rejects.toMatchObject({ message: 'no session matches "zz"', hint: "list the sessions with: nudge session list" });
  });
});
