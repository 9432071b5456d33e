/**
 * A long session: 1,000 turns on a 10k-file repository, claude's transcript growing ~40 KB a turn.
 * Between-turn cost near turn 1000 against near turn 10 (git status timed alongside at both ends),
 * and storage per turn (turns 901–1000) against what git itself stores for the same changes,
 * committed one by one in a twin repository. Also one turn that changes one byte of a 50 MB binary.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { applyTurnChange, BIG_BINARY, EDITED_FILE } from "./turn-change.mjs";
import { generateRepo, git } from "./repo.js";
import { nextTurnNumber, runSession, untrackedCacheVerdict } from "./session.js";
import { sizeDelta, storeSizes, treeBytes, type StoreSizes } from "./store-size.js";
import { median, progress } from "./stats.js";

export interface LongSessionResult {
  turns: number;
  repo: string;
  id: string;
  /** Median between-turn time and git status over the turns near the start and near the end. */
  early: { from: number; to: number; betweenMs: number; statusMs: number };
  late: { from: number; to: number; betweenMs: number; statusMs: number };
  /** Storage per turn over `storageTurns` turns at the end, nudge's and git's for the same changes. */
  storageTurns: number;
  nudge: StoreSizes;
  twinGit: number;
}

const WINDOW = 20;

export async function longSession(files: number, turns: number): Promise<LongSessionResult> {
  progress(`long session: generating ${files.toLocaleString("en")} files`);
  const repo = await generateRepo({ files });
  await runSession(repo, [`bench ${nextTurnNumber(repo)} small`]);
  await untrackedCacheVerdict(repo);
  const storageTurns = Math.min(100, turns - 2 * WINDOW);
  const measureAt = new Set([turns - storageTurns + 1, turns + 1]);
  const early = { from: 3, to: 2 + WINDOW };
  const late = { from: turns - WINDOW + 1, to: turns };
  const numbers: number[] = [];
  const prompts: string[] = [];
  for (let k = 1; k <= turns + 1; k++) {
    const n = nextTurnNumber(repo);
    numbers.push(n);
    const flags = [];
    if ((k >= early.from && k <= early.to) || (k >= late.from && k <= late.to)) flags.push("status");
    if (measureAt.has(k)) flags.push("measure");
    prompts.push(["bench", n, k === turns + 1 ? "none" : "small", ...flags].join(" "));
  }
  const sizes = new Map<number, StoreSizes>();
  let id = "";
  let lastReport = Date.now();
  progress(
    `long session: ${turns} turns (git status timed on turns ${early.from}–${early.to} and ${late.from}–${late.to})`,
  );
  const run = await runSession(repo, prompts, {
    onMeasure: (k) => {
      id ||= findSession(repo);
      sizes.set(k, storeSizes(repo, id));
      progress(`long session: at turn ${k - 1}`);
    },
    onStdoutLine: (line) => {
      if (Date.now() - lastReport > 30_000 && /^● turn \d+/.test(line)) {
        lastReport = Date.now();
        progress(`long session: ${line.split(" · ")[0]!.slice(2)}`);
      }
    },
  });
  const pick = (m: Map<number, number>, r: { from: number; to: number }) =>
    [...m.entries()].filter(([k]) => k >= r.from && k <= r.to).map(([, v]) => v);
  const before = sizes.get(turns - storageTurns + 1)!;
  const after = sizes.get(turns + 1)!;
  progress(`long session: committing the same ${storageTurns} changes with git in a twin repository`);
  const twinGit = await twinStorage(
    files,
    numbers.slice(0, turns - storageTurns),
    numbers.slice(turns - storageTurns, turns),
    nextWarmUpNumbers(numbers),
  );
  return {
    turns,
    repo,
    id: run.id,
    early: { ...early, betweenMs: median(pick(run.between, early)), statusMs: median(pick(run.status, early)) },
    late: { ...late, betweenMs: median(pick(run.between, late)), statusMs: median(pick(run.status, late)) },
    storageTurns,
    nudge: sizeDelta(before, after, storageTurns),
    twinGit,
  };
}

/** The turn numbers used before the long session (its warm-up session's). */
function nextWarmUpNumbers(numbers: number[]): number[] {
  return Array.from({ length: numbers[0]! - 1 }, (_, i) => i + 1);
}

/** The session being recorded: the one bundle that holds a lock file. */
function findSession(repo: string): string {
  const dir = path.join(repo, ".git", "nudge", "sessions");
  const live = readdirSync(dir).filter((id) => existsSync(path.join(dir, id, "lock")));
  if (live.length !== 1) throw new Error(`expected one live session in ${dir}, found ${live.length}`);
  return live[0]!;
}

/**
 * What git stores for the same changes: a twin repository where the earlier turns' changes are
 * committed at once, then each measured turn's change is committed on its own (add + commit).
 * Returns .git's growth per measured turn.
 */
async function twinStorage(files: number, earlier: number[], measured: number[], warmUp: number[]): Promise<number> {
  const twin = await generateRepo({ files });
  for (const n of [...warmUp, ...earlier]) applyTurnChange(twin, n, "small");
  await git(twin, "add", "-A");
  await git(twin, "commit", "-q", "-m", "earlier turns");
  const gitDir = path.join(twin, ".git");
  const start = treeBytes(gitDir);
  for (const n of measured) {
    applyTurnChange(twin, n, "small");
    await git(twin, "add", "--", EDITED_FILE, `added/turn-${n}.ts`);
    await git(twin, "commit", "-q", "-m", `turn ${n}`);
  }
  return (treeBytes(gitDir) - start) / measured.length;
}

export interface BinaryTurnResult {
  nudge: StoreSizes;
  twinGit: number;
}

/** One turn that changes one byte of a tracked 50 MB binary: nudge's growth against git's commit of it. */
export async function binaryTurnStorage(): Promise<BinaryTurnResult> {
  progress("storage: a turn that changes one byte of a 50 MB binary");
  const shape = { files: 1_000, trackedBinaryMB: 50 };
  const repo = await generateRepo(shape);
  const [n1, n2, n3] = [nextTurnNumber(repo), nextTurnNumber(repo), nextTurnNumber(repo)];
  const sizes = new Map<number, StoreSizes>();
  let id = "";
  await runSession(repo, [`bench ${n1} small`, `bench ${n2} binary measure`, `bench ${n3} none measure`], {
    onMeasure: (k) => {
      id ||= findSession(repo);
      sizes.set(k, storeSizes(repo, id));
    },
  });
  const twin = await generateRepo(shape);
  applyTurnChange(twin, n1, "small");
  await git(twin, "add", "-A");
  await git(twin, "commit", "-q", "-m", "turn 1");
  const before = treeBytes(path.join(twin, ".git"));
  applyTurnChange(twin, n2, "binary");
  await git(twin, "add", "--", BIG_BINARY);
  await git(twin, "commit", "-q", "-m", "turn 2");
  return { nudge: sizeDelta(sizes.get(2)!, sizes.get(3)!, 1), twinGit: treeBytes(path.join(twin, ".git")) - before };
}
