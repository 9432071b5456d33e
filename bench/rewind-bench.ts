/**
 * Rewind against `git checkout` of the same change: a session whose turn 1 edits, adds and
 * deletes a file; nudge rewinds back and forth between turns 0 and 1 (capture, backup, switch,
 * verify), git checks out the equivalent commits back and forth in a twin repository.
 */
import { execa } from "execa";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { MANIFEST_FORMAT, type Manifest, type Turn } from "../src/bundle/manifest-schema.js";
import { loadSession, writeBundle, type Store } from "../src/bundle/store.js";
import { summaryOf } from "../src/bundle/summary.js";
import * as git from "../src/snapshot/git.js";
import { PrivateIndex } from "../src/snapshot/private-index.js";
import { keepSnapshot, patchBetween } from "../src/snapshot/snapshotter.js";
import { applyRewind, prepareRewind } from "../src/time-travel/rewind.js";
import { baselineGit, generateRepo, median, timeIt } from "./bench-repo.js";
import { promises as fs } from "node:fs";

function change(dir: string): void {
  writeFileSync(path.join(dir, "src", "m0", "d0", "f0.ts"), "export const v0 = 'changed';\n");
  writeFileSync(path.join(dir, "added.ts"), "export const added = true;\n");
  rmSync(path.join(dir, "src", "m0", "d0", "f1.ts"));
}

async function twoTurnSession(repo: string): Promise<{ store: Store; id: string }> {
  const store: Store = { repoRoot: repo, commonDir: path.join(repo, ".git"), gitDir: path.join(repo, ".git"), dir: path.join(repo, ".git", "nudge"), ownDirs: [] };
  const id = "benchrewind";
  const indexFile = path.join(store.dir, "index", id);
  const head = (await git.headCommit(repo))!;
  const turns: Turn[] = [];
  let previous = { commit: head, tree: await git.treeOf(repo, head) };
  for (const n of [0, 1]) {
    if (n === 1) change(repo);
    const { tree } = await new PrivateIndex({ root: repo, indexFile, exclude: [], untrackedCache: true }).capture();
    const commit = await keepSnapshot(repo, { tree, parent: previous.commit, message: `turn ${n}`, ref: `refs/nudge/sessions/${id}` });
    const patch = await patchBetween(repo, previous.tree, tree);
    const s = { tree, commit, ref: `refs/nudge/sessions/${id}`, head: await git.headCommit(repo), patchSha256: patch.sha256, patch: patch.bytes, stats: { filesChanged: patch.filesChanged, insertions: patch.insertions, deletions: patch.deletions, binaryFiles: patch.binaryFiles } };
    const at = new Date().toISOString();
    turns.push({
      n, prompt: n ? "change" : null, status: "complete", startedAt: at, endedAt: at, lines: { from: 0, to: 0 }, result: null,
      claudeSessionId: null, lastAssistantUuid: null, head: s.head, snapshot: { commit: s.commit, tree: s.tree, ref: s.ref },
      patch: { file: `changes/turn-00${n}.patch`, sha256: s.patchSha256, bytes: s.patch.length, ...s.stats }, transcript: null,
    });
    previous = { commit: s.commit, tree: s.tree };
  }
  const at = new Date().toISOString();
  const manifest: Manifest = {
    format: MANIFEST_FORMAT, id, createdAt: at, updatedAt: at, state: "complete",
    repo: { root: repo, cwd: repo, baseCommit: head, branch: "main" }, claude: { version: null, model: null },
    parent: null, resume: null, rewoundTo: null, summary: summaryOf(turns), turns, unsaved: [],
  };
  await fs.mkdir(path.join(store.dir, "sessions", id), { recursive: true });
  await writeBundle(path.join(store.dir, "sessions", id), manifest);
  return { store, id };
}

export interface RewindBenchRow {
  files: number;
  gitCheckoutMs: number;
  rewindMs: number;
  ratio: number;
}

export async function rewindBench(files: number, rounds: number): Promise<RewindBenchRow> {
  const repo = await generateRepo(files);
  const twin = await generateRepo(files);
  const base = (await git.headCommit(twin))!;
  change(twin);
  await execa("git", ["add", "-A"], { cwd: twin });
  await execa("git", ["commit", "-q", "-m", "change"], { cwd: twin });
  const changed = (await git.headCommit(twin))!;
  await execa("git", ["checkout", "-q", "--detach", base], { cwd: twin });

  const { store, id } = await twoTurnSession(repo);
  const rewind = async (turn: number) => {
    const session = await loadSession(store, id);
    await applyRewind(store, session, await prepareRewind(store, session, turn, { scope: "code", resetHead: false }));
  };
  const checkoutTimes: number[] = [];
  const rewindTimes: number[] = [];
  await rewind(0); // warm-up
  await execa("git", ["checkout", "-q", "--detach", changed], { cwd: twin });
  await execa("git", ["checkout", "-q", "--detach", base], { cwd: twin });
  for (let i = 0; i < rounds; i++) {
    const [turn, commit] = i % 2 ? [0, base] : [1, changed];
    checkoutTimes.push(await timeIt(() => baselineGit(twin, "checkout", "-q", "--detach", commit)));
    rewindTimes.push(await timeIt(() => rewind(turn)));
  }
  const gitCheckoutMs = median(checkoutTimes);
  const rewindMs = median(rewindTimes);
  return { files, gitCheckoutMs, rewindMs, ratio: rewindMs / gitCheckoutMs };
}
