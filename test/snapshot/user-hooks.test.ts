/**
 * nudge's own git work (a private index written each turn, a ref per snapshot, the writes of a
 * rewind) must not run the user's hooks: they are for the user's operations, not nudge's.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Store } from "../../src/store/store.js";
import { PrivateIndex } from "../../src/snapshot/private-index.js";
import { keepSnapshot } from "../../src/snapshot/snapshotter.js";
import { captureWorkTree } from "../../src/time-travel/rewind.js";
import { plannedSwitch, switchVerified } from "../../src/time-travel/work-tree-switch.js";
import { lockWorkTree } from "../../src/store/work-tree-lock.js";
import { git, gitdir, tempDir, writeFiles } from "../support/gitdir.js";

const HOOKS = ["post-index-change", "reference-transaction", "post-commit", "post-checkout", "pre-commit"];

describe("the user's git hooks", () => {
  it("run for the user's own git commands, and never for a snapshot or a rewind", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    const log = path.join(tempDir(), "hooks.log");
    for (const hook of HOOKS) {
      const file = path.join(repo, ".git", "hooks", hook);
      writeFileSync(file, `#!/bin/sh\necho ${hook} >> '${log}'\n`);
      chmodSync(file, 0o755);
    }
    // The hooks work: the user's own `git add` runs post-index-change.
    writeFiles(repo, { "b.txt": "b\n" });
    await git(repo, "add", "b.txt");
    expect(readFileSync(log, "utf8")).toContain("post-index-change");
    writeFileSync(log, "");

    const base = await git(repo, "rev-parse", "HEAD^{tree}");
    writeFiles(repo, { "c.txt": "c\n" });
    const indexFile = path.join(tempDir(), "index");
    const tree = (await new PrivateIndex({ root: repo, indexFile, exclude: [], untrackedCache: true }).capture()).tree;
    await keepSnapshot(repo, { tree, parent: null, message: "t1", ref: "refs/nudge/sessions/t" });
    const snap = { tree };
    const store: Store = {
      repoRoot: repo,
      commonDir: path.join(repo, ".git"),
      gitDir: path.join(repo, ".git"),
      dir: path.join(repo, ".git", "nudge"),
      ownDirs: [],
    };
    const lock = await lockWorkTree(store, repo, { what: "testing" });
    const state = await captureWorkTree(store, repo);
    await switchVerified(state, {
      from: snap.tree,
      to: base,
      what: "base",
      changes: await plannedSwitch(repo, snap.tree, base, "base"),
    }); // deletes c.txt
    expect(existsSync(path.join(repo, "c.txt"))).toBe(false);
    await switchVerified(state, {
      from: base,
      to: snap.tree,
      what: "turn 1",
      changes: await plannedSwitch(repo, base, snap.tree, "turn 1"),
    }); // writes it back (checkout-index)
    expect(existsSync(path.join(repo, "c.txt"))).toBe(true);

    await lock.release();
    expect(readFileSync(log, "utf8")).toBe("");
  });
});
