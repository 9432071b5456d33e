/**
 * `nudge session backups` and `nudge session gc` on a real recording (real claude binary,
 * scripted API) and its forks: what `--undo` can go back to, removal by age that never takes the
 * backup `--undo` restores, and leftovers removed while nothing anyone uses is touched.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { sharedIndexOf } from "../../src/snapshot/private-index.js";
import { git, tempDir } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";
import { nudgeRefs, storeState } from "../support/store-state.js";
import { recordThreeTurnsForFile } from "../support/three-turns.js";

let repo: string;
let id: string;
let dir: string;

recordThreeTurnsForFile((recorded) => ({ repo, id, dir } = recorded));

const DAY = 86_400_000;
const store = () => path.join(repo, ".git", "nudge");

async function nudge(args: string[], cwd = repo) {
  const run = await runNudge(args, { cwd });
  expect(run.exitCode, `${args.join(" ")}: ${run.stderr}`).toBe(0);
  return run;
}

function editJson(file: string, change: (json: Record<string, unknown>) => void): void {
  const json = JSON.parse(readFileSync(file, "utf8"));
  change(json);
  writeFileSync(file, JSON.stringify(json, null, 2) + "\n");
}

/** Pretend a session was last used `days` ago. */
function lastUsed(sessionDir: string, days: number): void {
  editJson(
    path.join(sessionDir, "manifest.json"),
    (m) => (m.updatedAt = new Date(Date.now() - days * DAY).toISOString()),
  );
}

type Rec = { stamp: string; kind: string; status: string; backup: { ref: string }; at: string };

/** The journal's records, oldest first: rewinds only, or (all) the undos too. */
function records(all = false): Rec[] {
  const dir = path.join(store(), "rewinds");
  return readdirSync(dir)
    .filter((n) => n.endsWith(".json"))
    .sort()
    .map((n) => JSON.parse(readFileSync(path.join(dir, n), "utf8")) as Rec)
    .filter((r) => all || r.kind !== "undo");
}

function makeOld(file: string, hours = 2): void {
  const at = (Date.now() - hours * 3_600_000) / 1000;
  utimesSync(file, at, at);
}

let rewinds: Promise<void> | undefined;
/** Once per file: rewind to 1, then to 2, edit a file, undo (the edit is kept under a backup ref). */
function twoRewindsAndAnUndo(): Promise<void> {
  return (rewinds ??= (async () => {
    await nudge(["session", "rewind", id, "1", "--yes"]);
    await nudge(["session", "rewind", id, "2", "--yes"]);
    writeFileSync(path.join(repo, "mine.txt"), "made after the rewind\n");
    await nudge(["session", "rewind", "--undo", "--yes"]);
  })());
}

async function forkInto(turn: string): Promise<{ id: string; wt: string }> {
  const wt = path.join(tempDir(), "wt");
  const run = await nudge(["session", "fork", id, turn, "--worktree", wt]);
  return { id: /→ (\w+)/.exec(run.stdout)![1]!, wt };
}

describe("history views", () => {
  it("snapshot refs are left out of git log by --exclude='refs/nudge/*' before --all (after it, it does nothing)", async () => {
    const snapshots = (await git(repo, "rev-list", `refs/nudge/sessions/${id}`)).split("\n");
    const all = (await git(repo, "log", "--all", "--format=%H")).split("\n");
    expect(all).toEqual(expect.arrayContaining(snapshots));
    const excluded = (await git(repo, "log", "--exclude=refs/nudge/*", "--all", "--format=%H")).split("\n");
    expect(excluded).toEqual((await git(repo, "log", "--format=%H")).split("\n"));
    expect((await git(repo, "log", "--all", "--exclude=refs/nudge/*", "--format=%H")).split("\n")).toEqual(all);
    expect((await git(repo, "log", "--branches", "--tags", "--remotes", "--format=%H")).split("\n")).toEqual(excluded);
  });
});

describe("nudge session backups", () => {
  it("lists rewinds newest first, marks the one --undo restores, and names backups --undo does not", async () => {
    expect((await nudge(["session", "backups"])).stdout).toBe("no backups: no rewind has been made in this repository");
    await twoRewindsAndAnUndo();
    const [r1, r2] = records();

    const list = await nudge(["session", "backups"]);
    const lines = list.stdout.split("\n");
    expect(lines[0]).toMatch(/^ +WHEN \(UTC\) +SESSION +TURN +WHAT +STATUS +FILES +BACKUP$/);
    const undo = records(true).find((r) => r.kind === "undo")!;
    // The undo is journaled too, with the state it replaced (the rewound files and the edit made since).
    expect(lines[1]).toMatch(
      new RegExp(`^ +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d +${id} +2 +undo +applied +\\d+ +${undo.backup.ref}$`),
    );
    expect(lines[2]).toMatch(
      new RegExp(`^ +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d +${id} +2 +rewind +undone +1 +${r2!.backup.ref}$`),
    );
    expect(lines[3]).toMatch(new RegExp(`^\\* +\\S+ \\S+ +${id} +1 +rewind +applied +4 +${r1!.backup.ref}$`));
    expect(list.stdout).toContain("* nudge session rewind --undo puts back the files from before this rewind");

    const json = JSON.parse((await nudge(["session", "backups", "--json"])).stdout);
    expect(
      json.entries.map((e: { stamp: string; undo: boolean; status: string }) => [e.stamp, e.status, e.undo]),
    ).toEqual([
      [undo.stamp, "applied", false],
      [r2!.stamp, "undone", false],
      [r1!.stamp, "applied", true],
    ]);
    expect(await git(repo, "show", `${undo.backup.ref}:mine.txt`)).toBe("made after the rewind");
  });
});

describe("nudge session gc", () => {
  it("removes what is older than the age, never the backup --undo restores nor its session; forks keep working", async () => {
    await twoRewindsAndAnUndo();
    const old = await forkInto("3");
    const recent = await forkInto("2");
    lastUsed(dir, 60);
    lastUsed(path.join(store(), "sessions", old.id), 45);
    lastUsed(path.join(store(), "sessions", recent.id), 5);
    const [r1, r2] = records();
    for (const r of [r1!, r2!])
      editJson(
        path.join(store(), "rewinds", `${r.stamp}.json`),
        (j) => (j.at = new Date(Date.now() - 40 * DAY).toISOString()),
      );
    // An edits backup from long ago that no record names.
    const tree = await git(repo, "rev-parse", "HEAD^{tree}");
    const date = new Date(Date.now() - 50 * DAY).toISOString();
    const ancient = (
      await execa("git", ["commit-tree", tree, "-m", "old edits"], {
        cwd: repo,
        env: { GIT_COMMITTER_DATE: date, GIT_AUTHOR_DATE: date },
      })
    ).stdout;
    await git(repo, "update-ref", "refs/nudge/backup/20200101-000000000-1-before-undo", ancient);
    const recentBackup = (await nudgeRefs(repo))
      .find((r) => r.includes("before-undo") && !r.includes("20200101"))!
      .split(" ")[0]!;

    const before = await storeState(repo);
    const dry = await nudge(["session", "gc", "--dry-run"]);
    expect(await storeState(repo)).toEqual(before);
    expect(dry.stdout).toMatch(new RegExp(`^remove session ${old.id} · 3 turns`, "m"));
    expect(dry.stdout).not.toMatch(new RegExp(`^remove session (${id}|${recent.id})`, "m"));
    expect(dry.stdout).toContain(`keep session ${id}: \`nudge session rewind --undo\` goes back to its rewind`);
    expect(dry.stdout).toContain(`remove rewind record ${r2!.stamp} · session ${id} to turn 2 · undone`);
    expect(dry.stdout).toContain(
      `keep rewind record ${r1!.stamp} and ${r1!.backup.ref}: \`nudge session rewind --undo\` restores it`,
    );
    expect(dry.stdout).toContain("remove backup refs/nudge/backup/20200101-000000000-1-before-undo");
    expect(dry.stdout).not.toContain(`remove backup ${recentBackup}`);

    const gc = await nudge(["session", "gc", "--older-than", "30d", "--yes"]);
    expect(gc.stdout).toMatch(/^removed 1 session, 1 record, 3 refs/m);
    expect(existsSync(path.join(store(), "sessions", old.id))).toBe(false);
    expect(existsSync(dir)).toBe(true);
    expect(existsSync(path.join(store(), "sessions", recent.id))).toBe(true);
    const refs = (await nudgeRefs(repo)).map((r) => r.split(" ")[0]);
    expect(refs).toEqual(
      expect.arrayContaining([
        r1!.backup.ref,
        recentBackup,
        `refs/nudge/sessions/${id}`,
        `refs/nudge/sessions/${recent.id}`,
      ]),
    );
    expect(refs).not.toContain(r2!.backup.ref);
    expect(refs).not.toContain(`refs/nudge/sessions/${old.id}`);
    expect(records().map((r) => r.stamp)).toEqual([r1!.stamp]);

    await git(repo, "reflog", "expire", "--expire=now", "--all");
    await git(repo, "gc", "-q", "--prune=now");
    await nudge(["session", "rewind", "--undo", "--yes"]); // the state before r1: turn 3's files
    expect(readFileSync(path.join(repo, "notes.txt"), "utf8")).toBe("alpha\nBETA\ngamma\n");
    expect((await nudge(["session", "diff", recent.id, "2"])).stdout).toContain("+BETA");

    // Undone now, r1 is no longer what --undo restores: a gc takes it, and its session once unused long enough.
    lastUsed(dir, 60);
    const again = await nudge(["session", "gc", "--yes"]);
    expect(again.stdout).toMatch(new RegExp(`^remove session ${id} `, "m"));
    expect(records()).toEqual([]);
    expect(existsSync(dir)).toBe(false);
    expect((await nudge(["session", "list"])).stdout).toMatch(new RegExp(`^${recent.id} `, "m"));
  });

  it("removes leftovers of cut-off runs, never a shared index an index uses, nor anything live", async () => {
    const gitDir = path.join(repo, ".git");
    const userIndex = path.join(gitDir, "index");
    const index = (name: string) => path.join(store(), "index", name);
    const me = { host: os.hostname(), owner: { pid: process.pid, started: null }, claude: null };
    const deadOwner = { ...me, owner: { pid: spawnSync("true").pid!, started: null } };
    mkdirSync(path.join(store(), "locks"), { recursive: true });
    const blob = await git(repo, "rev-parse", "HEAD:README.md");
    /** The shared index file `make` leaves in `where` (git names them by content). */
    const newShared = async (where: string, make: () => Promise<unknown>): Promise<string> => {
      const names = () => readdirSync(where).filter((n) => n.startsWith("sharedindex."));
      const before = new Set(names());
      await make();
      const made = names().filter((n) => !before.has(n));
      expect(made).toHaveLength(1);
      return path.join(where, made[0]!);
    };
    /** A split copy of the user's index at `file`, with one path of its own so that its shared index is too. */
    const splitCopy = (file: string, extra: string) => async () => {
      copyFileSync(userIndex, file);
      const env = { GIT_INDEX_FILE: file };
      await execa("git", ["update-index", "--add", "--cacheinfo", `100644,${blob},${extra}`], { cwd: repo, env });
      await execa("git", ["update-index", "--split-index"], { cwd: repo, env }); // now every entry is in the shared part
    };

    // A session recorded right now (this process holds its lock): its private index and shared index are in use.
    const recent = readdirSync(path.join(store(), "sessions")).filter((n) => !n.startsWith("."))[0]!;
    const liveDir = path.join(store(), "sessions", recent);
    editJson(path.join(liveDir, "manifest.json"), (m) => (m.state = "recording"));
    writeFileSync(path.join(liveDir, "lock"), JSON.stringify(me));
    const liveShared = await newShared(gitDir, splitCopy(index(recent), "live-only.txt"));
    // Shared indexes nothing refers to any more: one old, one just written (an index may be about to point to it).
    const scratchIndex = path.join(tempDir(), "index");
    const unusedShared = await newShared(gitDir, splitCopy(scratchIndex, "gone.txt"));
    const freshShared = await newShared(gitDir, splitCopy(scratchIndex, "fresh.txt"));
    // The user's own index, and a linked worktree's, both split. git names shared indexes by content:
    // the user's now uses the very file nudge's private index made from it while recording.
    const sharedBefore = readdirSync(gitDir).filter((n) => n.startsWith("sharedindex."));
    await git(repo, "update-index", "--split-index");
    const userShared = path.join(gitDir, (await sharedIndexOf(userIndex, gitDir))!);
    expect(sharedBefore).toContain(path.basename(userShared));
    const linked = path.join(tempDir(), "linked");
    await git(repo, "worktree", "add", "-q", "--detach", linked);
    const linkedShared = await newShared(path.join(gitDir, "worktrees", "linked"), () =>
      git(linked, "update-index", "--split-index"),
    );
    for (const f of [liveShared, unusedShared, userShared, linkedShared]) makeOld(f);

    // Private indexes: of a session that is gone, of rewinds (one running now: its work tree lock is held).
    copyFileSync(userIndex, index("0a1b2c3d4e"));
    writeFileSync(path.join(store(), "locks", "worktree-cccccccccccc.lock"), JSON.stringify(me));
    copyFileSync(userIndex, index("worktree-cccccccccccc"));
    copyFileSync(userIndex, index("worktree-dddddddddddd"));
    // A lock whose holder died.
    writeFileSync(path.join(store(), "locks", "worktree-bbbbbbbbbbbb.lock"), JSON.stringify(deadOwner));
    // A session killed during turn 0 (no manifest, a dead holder, its turn 0 ref), one starting this moment, one damaged.
    const cut = path.join(store(), "sessions", "0123456789");
    mkdirSync(path.join(cut, "changes"), { recursive: true });
    writeFileSync(path.join(cut, "lock"), JSON.stringify(deadOwner));
    await git(repo, "update-ref", "refs/nudge/sessions/0123456789", "HEAD");
    const starting = path.join(store(), "sessions", "9876543210");
    mkdirSync(starting);
    const damaged = path.join(store(), "sessions", "abcdefabcd");
    mkdirSync(damaged);
    writeFileSync(path.join(damaged, "conversation.jsonl"), '{"type":"system"}\n');
    // The ref of a session kept in another store (NUDGE_STORE): pointed out, never removed.
    await git(repo, "update-ref", "refs/nudge/sessions/feedfacefe", "HEAD");
    // An untracked-cache check that was killed.
    const check = index("untracked-cache-aaaaaaaaaaaa.check");
    mkdirSync(path.join(check, ".git"), { recursive: true });
    makeOld(check);

    const before = await storeState(repo);
    const dry = await nudge(["session", "gc", "--dry-run"]);
    expect(await storeState(repo)).toEqual(before);
    expect(dry.stdout).toContain("remove leftovers nudge left behind:");
    expect(dry.stdout).toContain(
      `  the private index of session 0a1b2c3d4e, which no longer exists: ${index("0a1b2c3d4e")}`,
    );
    expect(dry.stdout).toContain(`  a shared index file no index refers to: ${unusedShared}`);
    expect(dry.stdout).toContain(`  a session cut off before its first snapshot was saved: ${cut}`);
    expect(dry.stdout).toContain("    and its ref refs/nudge/sessions/0123456789");
    expect(dry.stdout).toContain(
      "keep session folder abcdefabcd: it has no manifest.json but holds a conversation (remove it with: nudge session rm abcdefabcd)",
    );
    expect(dry.stdout).toMatch(/^keep the snapshot refs of 1 session not in this store/m);

    await nudge(["session", "gc", "--yes"]);
    const gone = [
      index("0a1b2c3d4e"),
      index("worktree-dddddddddddd"),
      path.join(store(), "locks", "worktree-bbbbbbbbbbbb.lock"),
      cut,
      check,
      unusedShared,
    ];
    const kept = [
      index(recent),
      liveShared,
      freshShared,
      userShared,
      linkedShared,
      index("worktree-cccccccccccc"),
      path.join(store(), "locks", "worktree-cccccccccccc.lock"),
      starting,
      damaged,
      liveDir,
    ];
    expect(gone.filter((f) => existsSync(f))).toEqual([]);
    expect(kept.filter((f) => !existsSync(f))).toEqual([]);
    expect((await nudgeRefs(repo)).some((r) => r.startsWith("refs/nudge/sessions/0123456789 "))).toBe(false);
    expect((await nudgeRefs(repo)).some((r) => r.startsWith(`refs/nudge/sessions/${recent} `))).toBe(true);
    expect((await nudgeRefs(repo)).some((r) => r.startsWith("refs/nudge/sessions/feedfacefe "))).toBe(true);
    // Every index that uses a shared index still reads.
    for (const [cwd, env] of [
      [repo, {}],
      [linked, {}],
      [repo, { GIT_INDEX_FILE: index(recent) }],
    ] as const) {
      expect((await execa("git", ["ls-files"], { cwd, env })).stdout).toContain("README.md");
    }
    // The damaged folder is the user's call: rm takes it.
    const rm = await nudge(["session", "rm", "abcdefabcd", "--yes"]);
    expect(rm.stdout).toMatch(/^remove session abcdefabcd · unreadable: it has no manifest.json$/m);
    expect(existsSync(damaged)).toBe(false);
  });
});
