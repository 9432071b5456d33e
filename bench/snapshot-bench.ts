/**
 * Per-turn snapshot cost against `git status --porcelain -uall` on the same repo, same state,
 * same run: each turn makes a small change, then both are timed, alternating which goes first.
 */
import path from "node:path";
import { PrivateIndex } from "../src/snapshot/private-index.js";
import { keepSnapshot } from "../src/snapshot/snapshotter.js";
import * as git from "../src/snapshot/git.js";
import { baselineGit, generateRepo, median, smallChange, timeIt } from "./bench-repo.js";

export interface SnapshotBenchRow {
  files: number;
  turns: number;
  gitStatusMs: number;
  snapshotMs: number;
  ratio: number;
}

export async function snapshotBench(files: number, turns: number): Promise<SnapshotBenchRow> {
  const repo = await generateRepo(files);
  const indexFile = path.join(repo, ".git", "nudge", "index", "bench");
  const head = (await git.headCommit(repo))!;
  let previous = { commit: head, tree: await git.treeOf(repo, head) };
  const status = () => baselineGit(repo, "status", "--porcelain", "-uall");
  const index = new PrivateIndex({ root: repo, indexFile, exclude: [], untrackedCache: true });
  const snapshot = async (n: number) => {
    const { tree } = await index.capture();
    const commit = await keepSnapshot(repo, { tree, parent: previous.commit, message: `turn ${n}`, ref: "refs/nudge/sessions/bench" });
    previous = { commit, tree };
  };
  // Warm-up: the first snapshot seeds the private index, the first status warms the OS cache.
  await status();
  await snapshot(0);
  const statusTimes: number[] = [];
  const snapshotTimes: number[] = [];
  for (let n = 1; n <= turns; n++) {
    smallChange(repo, n);
    if (n % 2) {
      statusTimes.push(await timeIt(status));
      snapshotTimes.push(await timeIt(() => snapshot(n)));
    } else {
      snapshotTimes.push(await timeIt(() => snapshot(n)));
      statusTimes.push(await timeIt(status));
    }
  }
  const gitStatusMs = median(statusTimes);
  const snapshotMs = median(snapshotTimes);
  return { files, turns, gitStatusMs, snapshotMs, ratio: snapshotMs / gitStatusMs };
}
