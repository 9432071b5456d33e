import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  applyToTree,
  commitTree,
  createBundle,
  diffTreeEquals,
  diffTrees,
  objectFormat,
  readBundleHeader,
  stageAll,
  treeOf,
  unbundle,
  userIdentity,
} from "../../src/snapshot/git.js";
import { git, gitdir, tempDir, writeFiles } from "../support/gitdir.js";

/** An origin (bare) and the exporter's clone of it, with one pushed commit. */
async function origin(): Promise<{ origin: string; clone: (name: string) => Promise<string> }> {
  const upstream = await gitdir({ "README.md": "# app\n", "src/app.js": "console.log(1)\n" });
  const bare = path.join(tempDir(), "origin.git");
  await git(path.dirname(bare), "clone", "-q", "--bare", upstream, bare);
  const clone = async (name: string) => {
    const dir = path.join(tempDir(), name);
    await git(path.dirname(dir), "clone", "-q", bare, dir);
    await git(dir, "config", "commit.gpgSign", "false");
    return dir;
  };
  return { origin: bare, clone };
}

/** Snapshot commits the way nudge takes them: a private index, the previous snapshot as parent. */
async function snapshots(
  root: string,
  base: string,
  turns: Array<Record<string, string | Buffer>>,
): Promise<Array<{ commit: string; tree: string }>> {
  const index = path.join(tempDir(), "index");
  const out: Array<{ commit: string; tree: string }> = [];
  let parent = base;
  for (const [n, files] of turns.entries()) {
    writeFiles(root, files);
    const { tree } = await stageAll(root, index);
    parent = await commitTree(root, tree, [parent], `turn ${n + 1}`);
    out.push({ commit: parent, tree });
  }
  return out;
}

/** What an import must never change: HEAD, branches, remote-tracking refs, the index, the work tree. */
async function userState(root: string): Promise<string> {
  return [
    await git(root, "rev-parse", "HEAD"),
    await git(root, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", "refs/remotes", "refs/tags"),
    readFileSync(path.join(root, ".git", "index")).toString("hex"),
    await git(root, "status", "--porcelain", "-uall"),
  ].join("\n");
}

const binary = randomBytes(256 * 1024);

describe("git bundles of a session's commits", () => {
  it("thin against the remote: a clone that has the base commit imports the snapshots, and nothing of the user's moves", async () => {
    const { clone } = await origin();
    const a = await clone("ana app");
    const base = await git(a, "rev-parse", "HEAD");
    const stateA = await userState(a);
    const [s1, s2] = await snapshots(a, base, [
      { "notes.txt": "alpha\n", "big.bin": binary },
      { "notes.txt": "alpha\nbeta\n" },
    ]);
    const file = path.join(tempDir(), "session.bundle");
    const made = await createBundle(
      a,
      file,
      [{ ref: "refs/nudge/s1/2", commit: s2!.commit }],
      [{ ref: "refs/nudge/s1/base", commit: base }],
    );
    const again = path.join(tempDir(), "again.bundle");
    await createBundle(
      a,
      again,
      [{ ref: "refs/nudge/s1/2", commit: s2!.commit }],
      [{ ref: "refs/nudge/s1/base", commit: base }],
    );
    expect(readFileSync(again).equals(readFileSync(file))).toBe(true); // an export is the same bytes every time
    expect(made.prerequisites).toEqual([base]);
    expect(made.prerequisiteRemotes).toEqual([{ commit: base, remoteRef: "origin/main" }]);
    expect(made.carried).toEqual([]);
    expect(made.heads).toEqual([{ ref: "refs/nudge/s1/2", commit: s2!.commit }]);
    expect(await git(a, "for-each-ref", "refs/nudge")).toBe(""); // the refs the bundle needed never touched the repository

    const b = await clone("bob copy");
    const before = await userState(b);
    await unbundle(b, file, [{ from: "refs/nudge/s1/2", to: "refs/nudge/import/s1/2" }]);
    expect(await git(b, "for-each-ref", "--format=%(refname) %(objectname)", "refs/nudge")).toBe(
      `refs/nudge/import/s1/2 ${s2!.commit}`,
    );
    expect(await treeOf(b, s2!.commit)).toBe(s2!.tree);
    expect(await treeOf(b, `${s2!.commit}^`)).toBe(s1!.tree);
    expect(await userState(b)).toBe(before);
    expect(stateA.split("\n")[0]).toBe(await git(a, "rev-parse", "HEAD"));
  });

  it("works in a SHA-256 repository too, and says who exports and in which hash", async () => {
    const a = await gitdir({ "a.txt": "a\n" }, { objectFormat: "sha256" });
    const base = await git(a, "rev-parse", "HEAD");
    const [s1] = await snapshots(a, base, [{ "a.txt": "b\n" }]);
    const file = path.join(tempDir(), "session.bundle");
    const made = await createBundle(
      a,
      file,
      [{ ref: "refs/nudge/s6/1", commit: s1!.commit }],
      [{ ref: "refs/nudge/s6/base", commit: base }],
    );
    expect(made.carried).toEqual([{ ref: "refs/nudge/s6/base", commit: base }]); // no remote at all: everything travels
    expect(made.prerequisites).toEqual([]);
    expect(await objectFormat(a)).toBe("sha256");
    expect(await userIdentity(a)).toEqual({ name: "Test", email: "test@example.com" });
    const b = tempDir();
    await git(b, "init", "-q", "--object-format=sha256");
    await unbundle(b, file, [{ from: "refs/nudge/s6/1", to: "refs/nudge/import/s6/1" }]);
    expect(await treeOf(b, s1!.commit)).toBe(s1!.tree);
  });

  it("carries a base commit and a HEAD that were never pushed, and says so", async () => {
    const { clone } = await origin();
    const a = await clone("ana");
    const pushed = await git(a, "rev-parse", "HEAD");
    writeFiles(a, { "local.txt": "committed, not pushed\n" });
    await git(a, "add", "local.txt");
    await git(a, "commit", "-q", "-m", "local work");
    const base = await git(a, "rev-parse", "HEAD");
    const [s1] = await snapshots(a, base, [{ "notes.txt": "alpha\n" }]);
    // Claude committed during the session: a HEAD that is no snapshot's ancestor.
    await git(a, "add", "notes.txt");
    await git(a, "commit", "-q", "-m", "claude's commit");
    const head = await git(a, "rev-parse", "HEAD");

    const file = path.join(tempDir(), "session.bundle");
    const made = await createBundle(
      a,
      file,
      [{ ref: "refs/nudge/s2/1", commit: s1!.commit }],
      [
        { ref: "refs/nudge/s2/base", commit: base },
        { ref: "refs/nudge/s2/head-1", commit: head },
      ],
    );
    expect(made.carried).toEqual([
      { ref: "refs/nudge/s2/base", commit: base },
      { ref: "refs/nudge/s2/head-1", commit: head },
    ]);
    expect(made.prerequisites).toEqual([pushed]);

    const b = await clone("bob");
    expect(await git(b, "cat-file", "-t", base).catch(() => "missing")).toBe("missing");
    await unbundle(b, file, [
      { from: "refs/nudge/s2/1", to: "refs/nudge/import/s2/1" },
      { from: "refs/nudge/s2/head-1", to: "refs/nudge/import/s2/head-1" },
    ]);
    expect(await treeOf(b, s1!.commit)).toBe(s1!.tree);
    expect(await git(b, "rev-parse", `${s1!.commit}^`)).toBe(base);
    expect(await git(b, "log", "-1", "--format=%s", head)).toBe("claude's commit");
  });

  it("refuses, before writing anything, when the clone lacks a commit the bundle builds on, naming it and its branch", async () => {
    const { clone } = await origin();
    const stale = await clone("stale"); // cloned before the exporter pushed
    const a = await clone("ana");
    writeFiles(a, { "pushed.txt": "x\n" });
    await git(a, "add", "pushed.txt");
    await git(a, "commit", "-q", "-m", "pushed later");
    await git(a, "push", "-q", "origin", "main");
    const base = await git(a, "rev-parse", "HEAD");
    const [s1] = await snapshots(a, base, [{ "notes.txt": "alpha\n" }]);
    const file = path.join(tempDir(), "session.bundle");
    const made = await createBundle(
      a,
      file,
      [{ ref: "refs/nudge/s3/1", commit: s1!.commit }],
      [{ ref: "refs/nudge/s3/base", commit: base }],
    );

    const packs = readdirSync(path.join(stale, ".git", "objects", "pack")).sort();
    const before = await userState(stale);
    await expect(
      unbundle(stale, file, [{ from: "refs/nudge/s3/1", to: "refs/nudge/import/s3/1" }], made.prerequisiteRemotes),
    ).rejects.toMatchObject({
      name: "UserError",
      message: `this repository lacks commit ${base} (on origin/main where it was exported), which the session's code builds on`,
      hint: "fetch it: git fetch origin main, then import again",
    });
    expect(await git(stale, "for-each-ref", "refs/nudge")).toBe("");
    expect(readdirSync(path.join(stale, ".git", "objects", "pack")).sort()).toEqual(packs);
    expect(await userState(stale)).toBe(before);
  });

  it("refuses a corrupted bundle without creating any ref", async () => {
    const { clone } = await origin();
    const a = await clone("ana");
    const base = await git(a, "rev-parse", "HEAD");
    const [s1] = await snapshots(a, base, [{ "notes.txt": "alpha\n".repeat(1000), "big.bin": binary }]);
    const file = path.join(tempDir(), "session.bundle");
    await createBundle(a, file, [{ ref: "refs/nudge/s4/1", commit: s1!.commit }]);
    const bytes = readFileSync(file);
    const packAt = bytes.indexOf("PACK");
    bytes[packAt + 2000] = bytes[packAt + 2000]! ^ 0xff; // inside the compressed objects
    writeFileSync(file, bytes);

    const b = await clone("bob");
    const before = await userState(b);
    await expect(unbundle(b, file, [{ from: "refs/nudge/s4/1", to: "refs/nudge/import/s4/1" }])).rejects.toMatchObject({
      name: "UserError",
      message: expect.stringMatching(/^the export.s git bundle is damaged \(.+\)$/),
    });
    expect(await git(b, "for-each-ref", "refs/nudge")).toBe("");
    expect(await userState(b)).toBe(before);

    writeFileSync(file, "not a bundle\n\n");
    await expect(readBundleHeader(file)).rejects.toMatchObject({
      name: "UserError",
      message: "the export's git bundle is damaged (not a git bundle)",
    });
  });

  it("patches without --binary apply after the bundle is in, reproducing every tree: binaries travel once", async () => {
    const { clone } = await origin();
    const a = await clone("ana");
    const base = await git(a, "rev-parse", "HEAD");
    const baseTree = await treeOf(a, base);
    const [s1, s2] = await snapshots(a, base, [
      { "big.bin": binary, "notes.txt": "alpha\n" },
      { "notes.txt": "alpha\nbeta\n" },
    ]);
    const patches = [await diffTrees(a, baseTree, s1!.tree), await diffTrees(a, s1!.tree, s2!.tree)];
    expect(patches[0]!.toString()).toContain("Binary files /dev/null and b/big.bin differ");
    expect(patches[0]!.length).toBeLessThan(1000);
    expect(patches[0]!.length).toBeLessThan(binary.length / 100); // named by object id, never copied as base85
    const file = path.join(tempDir(), "session.bundle");
    await createBundle(a, file, [{ ref: "refs/nudge/s5/2", commit: s2!.commit }]);
    expect(readFileSync(file).length).toBeLessThan(binary.length + 4096); // the blob, once

    const b = await clone("bob");
    const index = path.join(tempDir(), "index");
    // An importer checks the patches where the bundle's objects are, before writing anything:
    // a check that fails leaves the repository as it was.
    const packs = readdirSync(path.join(b, ".git", "objects", "pack")).sort();
    const wrong = Buffer.from(patches[1]!.toString().replace("+beta", "+gamma"));
    await expect(
      unbundle(b, file, [{ from: "refs/nudge/s5/2", to: "refs/nudge/import/s5/2" }], [], async (scratch) => {
        const t1 = await applyToTree(scratch, index, baseTree, patches[0]!);
        if ((await applyToTree(scratch, index, t1, wrong)) !== s2!.tree)
          throw new Error("turn 2 does not reproduce its tree");
      }),
    ).rejects.toThrow("turn 2 does not reproduce its tree");
    expect(await git(b, "for-each-ref", "refs/nudge")).toBe("");
    expect(readdirSync(path.join(b, ".git", "objects", "pack")).sort()).toEqual(packs);
    // Before the bundle's objects are in, the binary hunk has nothing to apply from.
    await expect(applyToTree(b, index, baseTree, patches[0]!)).rejects.toMatchObject({
      name: "UserError",
      message: expect.stringMatching(/^a patch in the export does not apply/),
    });
    await unbundle(b, file, [{ from: "refs/nudge/s5/2", to: "refs/nudge/import/s5/2" }]);
    const t1 = await applyToTree(b, index, baseTree, patches[0]!);
    expect(t1).toBe(s1!.tree);
    expect(await applyToTree(b, index, t1, patches[1]!)).toBe(s2!.tree);
  });
});

describe("a patch compared with git's as git writes it", () => {
  it("is equal only byte for byte: one byte changed, missing or added is not", async () => {
    const dir = await gitdir({ "big.txt": "first\n" });
    const before = await treeOf(dir, "HEAD");
    // Several MB of diff: git's output comes in many pieces.
    writeFileSync(
      path.join(dir, "big.txt"),
      randomBytes(3 << 20)
        .toString("base64")
        .replace(/(.{76})/g, "$1\n"),
    );
    await git(dir, "commit", "-qam", "big");
    const after = await treeOf(dir, "HEAD");
    const patch = await diffTrees(dir, before, after);
    const file = path.join(tempDir(), "turn.patch");
    const check = async (bytes: Buffer) => {
      writeFileSync(file, bytes);
      return diffTreeEquals(dir, before, after, file);
    };
    expect(await check(patch)).toBe(true);
    const flipped = Buffer.from(patch);
    flipped[flipped.length >> 1]! ^= 1;
    expect(await check(flipped)).toBe(false);
    expect(await check(patch.subarray(0, -1))).toBe(false);
    expect(await check(Buffer.concat([patch, Buffer.from("\n")]))).toBe(false);
  });
});
