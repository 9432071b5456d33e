/**
 * Undoing a killed import from its journal never deletes work recorded after it: a session the
 * import put in place that was continued since (its ref moved) is kept whole, with the refs and
 * the replaced session's backup where they are; one nobody touched is undone as before.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { beginWork, clearCutOff } from "../../src/store/cut-off-work.js";
import { openStore } from "../../src/store/store.js";
import { git, gitdir } from "../support/gitdir.js";

/** An import's steps up to the session in place, as import-install.ts journals them, the process then "killed" (its work never finished). */
async function cutOffImport() {
  const root = await gitdir();
  const store = await openStore(root, {});
  const head = await git(root, "rev-parse", "HEAD");
  const id = "0123456789";
  const ref = `refs/nudge/sessions/${id}`;
  const old = path.join(store.dir, "sessions", id);
  mkdirSync(old, { recursive: true });
  writeFileSync(path.join(old, "manifest.json"), "the copy before the pull\n");
  await git(root, "update-ref", ref, head);

  const work = await beginWork(store, "import", "a pull of session 0123456789 from origin");
  const backup = path.join(store.dir, "import-backups", `${id}-x`);
  mkdirSync(backup, { recursive: true });
  await work.will({ kind: "renamed", from: old, to: path.join(backup, "session") });
  renameSync(old, path.join(backup, "session"));
  const moves = [{ from: ref, to: `refs/nudge/import-backups/${id}-x/session`, commit: head }];
  await work.will({ kind: "moved-refs", moves });
  await git(root, "update-ref", moves[0]!.to, head);
  await git(root, "update-ref", "-d", ref);
  const pulled = await git(root, "commit-tree", "-p", head, "-m", "pulled", `${head}^{tree}`);
  await work.will({ kind: "refs", refs: [{ ref, commit: pulled }] });
  await git(root, "update-ref", ref, pulled);
  await work.will({ kind: "made", path: old });
  mkdirSync(old);
  writeFileSync(path.join(old, "manifest.json"), "the pulled copy\n");
  await work.will({ kind: "session", dir: old, ref, commit: pulled });
  return { root, store, work, ref, old, backup, pulled, head };
}

describe("undoing a cut-off import", () => {
  it("keeps the session it installed once a turn was recorded into it (its ref moved), and moves no ref over it", async () => {
    const t = await cutOffImport();
    const turn = await git(t.root, "commit-tree", "-p", t.pulled, "-m", "a turn recorded since", `${t.head}^{tree}`);
    await git(t.root, "update-ref", t.ref, turn);
    writeFileSync(path.join(t.old, "turns.jsonl"), "the turn recorded since\n");

    const cleared = await clearCutOff(t.store, t.work.dir);
    expect(readdirSync(t.old).sort()).toEqual(["manifest.json", "turns.jsonl"]);
    expect(await git(t.root, "rev-parse", t.ref)).toBe(turn);
    expect(existsSync(path.join(t.backup, "session", "manifest.json"))).toBe(true);
    expect(existsSync(t.work.dir)).toBe(false);
    expect(cleared.outcome).toBe("kept");
  });

  it("undoes it whole when nothing touched the session since: the copy before is back under its id", async () => {
    const t = await cutOffImport();
    const cleared = await clearCutOff(t.store, t.work.dir);
    expect(cleared.outcome).toBe("undone");
    expect(await git(t.root, "rev-parse", t.ref)).toBe(t.head);
    expect(await git(t.root, "for-each-ref", "refs/nudge/import-backups/")).toBe("");
    expect(existsSync(path.join(t.old, "manifest.json"))).toBe(true);
    expect(existsSync(path.join(t.backup, "session"))).toBe(false);
  });

  it("never moves the replaced session's ref back over a ref made since under its name", async () => {
    const t = await cutOffImport();
    // Not through the session step: its ref deleted and made again elsewhere (say by another nudge).
    const other = await git(t.root, "commit-tree", "-m", "another", `${t.head}^{tree}`);
    await git(t.root, "update-ref", "-d", t.ref);
    await git(t.root, "update-ref", t.ref, other);
    await clearCutOff(t.store, t.work.dir);
    expect(await git(t.root, "rev-parse", t.ref)).toBe(other);
    expect(await git(t.root, "rev-parse", `refs/nudge/import-backups/${path.basename(t.backup)}/session`)).toBe(t.head);
  });
});
