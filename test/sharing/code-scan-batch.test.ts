/**
 * The export's scan of the code for secrets reads what every snapshot commit changed with one
 * `git diff-tree --stdin` for the whole session, not one git per turn (a 300-turn session's export
 * took 15 s on them), and finds what it found before: the turn and patch that added a key.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Turn } from "../../src/store/manifest-schema.js";
import { scanCode } from "../../src/sharing/code-secrets.js";
import { git, gitdir, tempDir, writeFiles } from "../support/gitdir.js";
import { loadCorpus } from "../support/secret-corpus.js";

const key = loadCorpus().secrets.find((s) => s.kind === "private-key-rsa")!.text;

describe("the export's scan of the code", () => {
  it("asks git once for every turn's changes, and names the turn, path and patch of each secret", async () => {
    const repo = await gitdir({ "README.md": "# app\n", "old.txt": "kept\n" });
    const base = await git(repo, "rev-parse", "HEAD");
    const turns: Turn[] = [];
    const steps: Array<Record<string, string>> = [
      { "a.txt": "one\n" },
      { "deploy/id_rsa": key + "\n" },
      { "a.txt": "one\ntwo\n" },
      { "c.txt": "x\n" },
      { "b.txt": "three\n" },
    ];
    for (const [i, files] of steps.entries()) {
      writeFiles(repo, files);
      await git(repo, "add", "-A");
      await git(repo, "commit", "-q", "-m", `turn ${i + 1}`);
      const commit = await git(repo, "rev-parse", "HEAD");
      turns.push({
        n: i + 1,
        snapshot: { commit },
        patch: { file: `changes/turn-00${i + 1}.patch` },
      } as unknown as Turn);
    }
    const trace = path.join(tempDir(), "trace");
    process.env.GIT_TRACE = trace;
    let found: Awaited<ReturnType<typeof scanCode>>;
    try {
      found = await scanCode(repo, turns.at(-1)!.snapshot.commit, base, turns);
    } finally {
      delete process.env.GIT_TRACE;
    }
    const diffTrees = readFileSync(trace, "utf8")
      .split("\n")
      .filter((l) => / git diff-tree /.test(l) && l.includes("trace: "));
    expect(diffTrees.length, diffTrees.join("\n")).toBe(1);
    expect(found.secrets).toEqual([
      expect.objectContaining({ path: "deploy/id_rsa", in: "content", turn: 2, patch: "changes/turn-002.patch" }),
    ]);
    // Every blob the turns added was looked at.
    expect(found.scanned.size).toBe(5);
  });
});
