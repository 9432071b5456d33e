/**
 * Whether objects are in the repository, told by their loose files without git, and by git for
 * whatever is not loose: a packed object is there, a pruned one is not, as `cat-file` says.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { objectsExistHere } from "../../src/snapshot/loose-objects.js";
import { git, gitdir, tempDir } from "../support/gitdir.js";

let trace: string;

beforeEach(() => {
  trace = path.join(tempDir(), "trace.json");
  process.env.GIT_TRACE2_EVENT = trace;
});

afterEach(() => {
  delete process.env.GIT_TRACE2_EVENT;
});

/** How many git processes ran since the last call. */
function gitsRun(): number {
  if (!existsSync(trace)) return 0;
  const starts = readFileSync(trace, "utf8")
    .split("\n")
    .filter((line) => line.includes('"event":"start"')).length;
  writeFileSync(trace, "");
  return starts;
}

describe("objectsExistHere", () => {
  it("answers for loose objects without git, and asks git of packed and missing ones", async () => {
    const repo = await gitdir();
    writeFileSync(path.join(repo, "a.txt"), "a\n");
    await git(repo, "add", "a.txt");
    const tree = (await git(repo, "write-tree")).trim();
    const missing = "1".repeat(tree.length);
    const commonDir = path.join(repo, ".git");
    gitsRun();
    expect(await objectsExistHere(repo, commonDir, [tree])).toEqual([true]);
    expect(gitsRun()).toBe(0);
    expect(await objectsExistHere(repo, commonDir, [tree, missing])).toEqual([true, false]);
    expect(gitsRun()).toBe(1);
    await git(repo, "commit", "-q", "-m", "a");
    await git(repo, "gc", "-q");
    expect(existsSync(path.join(commonDir, "objects", tree.slice(0, 2), tree.slice(2)))).toBe(false);
    gitsRun();
    expect(await objectsExistHere(repo, commonDir, [tree])).toEqual([true]);
    expect(gitsRun()).toBe(1);
  });
});
