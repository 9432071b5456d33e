/**
 * `nudge session backups` counts the files each rewind changed for all records in two git
 * processes; a record whose trees git can no longer read in full (an object below the top one
 * pruned or damaged) shows "cannot tell", and the others still get their counts.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/store.js";
import { stageAll } from "../../src/snapshot/git.js";
import { listBackups } from "../../src/maintenance/backup-list.js";
import { saveRecord } from "../../src/time-travel/rewind-log.js";
import { git, gitdir, tempDir } from "../support/gitdir.js";
import { rewindRecord } from "../support/rewind-record.js";

const record = (root: string, i: number, before: string, after: string) =>
  rewindRecord(root, i, {
    backup: { commit: null, tree: before, ref: `refs/nudge/backup/${i}` },
    after: { tree: after, head: null },
  });

describe("session backups' file counts", () => {
  it("counts every record's files, and says it cannot tell for one whose trees git cannot read in full", async () => {
    const repo = await gitdir({ "a.txt": "1\n" });
    const index = path.join(tempDir(), "index");
    const t0 = (await stageAll(repo, index)).tree;
    mkdirSync(path.join(repo, "deep", "sub"), { recursive: true });
    writeFileSync(path.join(repo, "deep", "sub", "one.txt"), "one\n");
    writeFileSync(path.join(repo, "deep", "sub", "two.txt"), "two\n");
    const t1 = (await stageAll(repo, index)).tree;
    rmSync(path.join(repo, "deep"), { recursive: true });
    writeFileSync(path.join(repo, "a.txt"), "2\n");
    writeFileSync(path.join(repo, "b.txt"), "b\n");
    const t2 = (await stageAll(repo, index)).tree;
    const store = await openStore(repo);
    await saveRecord(store, record(repo, 1, t0, t1));
    await saveRecord(store, record(repo, 2, t1, t2));
    await saveRecord(store, record(repo, 3, t0, t2));
    const counts = async () => (await listBackups(store)).entries.map((e) => [e.stamp.slice(-6), e.filesChanged]);
    expect(await counts()).toEqual([
      ["0003-1", 2],
      ["0002-1", 4],
      ["0001-1", 2],
    ]);

    // The folder `deep` of t1 lost (its top tree is still there): the two records that need it cannot be counted.
    const deep = (await git(repo, "rev-parse", `${t1}:deep`)).trim();
    const loose = path.join(repo, ".git", "objects", deep.slice(0, 2), deep.slice(2));
    renameSync(loose, `${loose}.away`);
    expect(await counts()).toEqual([
      ["0003-1", 2],
      ["0002-1", null],
      ["0001-1", null],
    ]);
    renameSync(`${loose}.away`, loose);
    expect(await counts()).toEqual([
      ["0003-1", 2],
      ["0002-1", 4],
      ["0001-1", 2],
    ]);

    // A record naming a blob or a commit where a tree goes (damaged by hand): cannot tell, the others counted.
    const blob = (await git(repo, "rev-parse", `${t1}:a.txt`)).trim();
    await saveRecord(store, record(repo, 4, blob, t2));
    await saveRecord(store, record(repo, 5, t0, (await git(repo, "rev-parse", "HEAD")).trim()));
    expect(await counts()).toEqual([
      ["0005-1", null],
      ["0004-1", null],
      ["0003-1", 2],
      ["0002-1", 4],
      ["0001-1", 2],
    ]);
  });
});
