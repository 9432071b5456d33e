/**
 * Issue 23.5 as a bounded, deterministic kill campaign: `nudge session import`, `export` and
 * `gc` are killed with SIGKILL (NUDGE_FAULT=<point>:kill, as the OOM killer would) at each of
 * their fault points. After each kill: nothing in the OS's temp dir or beside `-o`; what is left
 * is in the store's work folder. Then the next command of the same kind, or `nudge session gc`,
 * clears it: nothing half-installed (no session folder without its refs or refs without their
 * folder, no claude files of a session that is not there), and the command works.
 */
import { execa } from "execa";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, tempDir } from "../support/gitdir.js";
import type { Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { nudgeRefs } from "../support/store-state.js";
import { exportedTwoTurns, filesUnder, importTarget } from "./share-support.js";

let rec: Recorded;
let a: string;
let clone: (name: string) => Promise<string>;
let archive: string;

beforeAll(async () => {
  ({ rec, a, clone, archive } = await exportedTwoTurns());
}, 90_000);
afterAll(() => rec?.api.close());

const target = () => importTarget(clone);

type Target = Awaited<ReturnType<typeof target>>;

function killed(run: { signal?: string; exitCode?: number; stderr: string }): void {
  expect(run.signal, run.stderr).toBe("SIGKILL");
}

/** Nothing of nudge's anywhere but its store: the temp dir is empty. */
function nothingOutsideStore(t: Target): void {
  expect(readdirSync(t.tmp)).toEqual([]);
}

/** The store holds no session, no ref, no work, no lock; claude's config dir no file. */
async function nothingAtAll(t: Target): Promise<void> {
  expect(filesUnder(t.store)).toEqual([]);
  expect(await nudgeRefs(t.b)).toEqual([]);
  expect(filesUnder(t.cfg)).toEqual([]);
  nothingOutsideStore(t);
}

/** The session imported whole, once: its folder, its refs, claude's files; no work folder, no hidden folder. */
async function installedOnce(t: Target): Promise<void> {
  const sessions = readdirSync(path.join(t.store, "sessions"));
  expect(sessions).toEqual([rec.id]);
  const refs = await nudgeRefs(t.b);
  expect(refs.filter((r) => r.startsWith(`refs/nudge/sessions/${rec.id} `)).length).toBe(1);
  expect(
    refs.every((r) => r.startsWith(`refs/nudge/sessions/${rec.id} `) || r.startsWith(`refs/nudge/${rec.id}/`)),
  ).toBe(true);
  expect(filesUnder(t.cfg).filter((f) => f.endsWith(".jsonl")).length).toBeGreaterThan(0);
  expect(readdirSync(path.join(t.store, "work"))).toEqual([]);
  nothingOutsideStore(t);
}

const IMPORT_POINTS = [
  "import-unpacked",
  "import-staged",
  "import-refs",
  "import-bundle",
  "import-place",
  "import-done",
];

describe("a killed import", () => {
  it.each(IMPORT_POINTS)(
    "killed at %s: leaves nothing outside the store; gc undoes it, and the next import clears it and installs",
    async (point) => {
      const t = await target();
      const kill = { ...t.env, NUDGE_FAULT: `${point}:kill` };
      killed(await runNudge(["session", "import", archive], { cwd: t.b, env: kill }));
      nothingOutsideStore(t);
      expect(readdirSync(path.join(t.store, "work")).filter((n) => n.startsWith("import-")).length).toBe(1);

      const gc = await runNudge(["session", "gc", "--yes"], { cwd: t.b, env: t.env });
      expect(gc.exitCode, gc.stderr).toBe(0);
      expect(gc.stdout).toMatch(/an import of session\.tar\.gz, cut off/);
      await nothingAtAll(t);

      killed(await runNudge(["session", "import", archive], { cwd: t.b, env: kill }));
      const again = await runNudge(["session", "import", archive], { cwd: t.b, env: t.env });
      expect(again.exitCode, again.stderr).toBe(0);
      expect(again.stdout).toMatch(new RegExp(`^imported session ${rec.id} `));
      await installedOnce(t);
    },
    120_000,
  );
});

describe("a killed export", () => {
  it.each(["export-staged:kill", "export-write:kill@2"])(
    "%s: no temp file beside -o, nothing in the temp dir; the next export or gc clears its work",
    async (point) => {
      const tmp = tempDir("nudge-tmp-");
      const out = tempDir("nudge-out-");
      const env = { ...rec.env, TMPDIR: tmp };
      const work = path.join(a, ".git", "nudge", "work");
      const exportTo = (name: string, extra: Record<string, string> = {}) =>
        runNudge(["session", "export", rec.id, "-o", path.join(out, name)], { cwd: a, env: { ...env, ...extra } });

      killed(await exportTo("one.tar.gz", { NUDGE_FAULT: point }));
      expect(readdirSync(tmp)).toEqual([]);
      expect(readdirSync(work).filter((n) => n.startsWith("export-")).length).toBe(1);
      const gc = await runNudge(["session", "gc", "--yes"], { cwd: a, env });
      expect(gc.exitCode, gc.stderr).toBe(0);
      expect(readdirSync(out)).toEqual([]);
      expect(readdirSync(work)).toEqual([]);

      killed(await exportTo("two.tar.gz", { NUDGE_FAULT: point }));
      const next = await exportTo("three.tar.gz");
      expect(next.exitCode, next.stderr).toBe(0);
      expect(readdirSync(out)).toEqual(["three.tar.gz"]);
      expect(readdirSync(work)).toEqual([]);
      expect(readdirSync(tmp)).toEqual([]);
    },
    120_000,
  );
});

describe("a killed fork --worktree", () => {
  it.each(["fork-worktree-added", "fork-building"])(
    "killed at %s: gc removes the worktree and the half-made fork; a retry at the same path clears it and forks",
    async (point) => {
      const sessions = () => readdirSync(path.join(a, ".git", "nudge", "sessions")).sort();
      const worktrees = async () =>
        (await git(a, "worktree", "list", "--porcelain")).split("\n").filter((l) => l.startsWith("worktree ")).length;
      const before = { sessions: sessions(), refs: await nudgeRefs(a), worktrees: await worktrees() };
      const wt = path.join(tempDir("nudge-fork-"), "try-b");
      const fork = (env: Record<string, string> = {}) =>
        runNudge(["session", "fork", rec.id, "1", "--worktree", wt], { cwd: a, env: { ...rec.env, ...env } });

      killed(await fork({ NUDGE_FAULT: `${point}:kill` }));
      expect(existsSync(wt)).toBe(true);
      const gc = await runNudge(["session", "gc", "--yes"], { cwd: a, env: rec.env });
      expect(gc.exitCode, gc.stderr).toBe(0);
      expect(gc.stdout).toContain(`a fork of session ${rec.id} into ${wt}, cut off`);
      expect(existsSync(wt)).toBe(false);
      expect(await worktrees()).toBe(before.worktrees);
      expect(sessions()).toEqual(before.sessions);
      expect(await nudgeRefs(a)).toEqual(before.refs);

      killed(await fork({ NUDGE_FAULT: `${point}:kill` }));
      const retry = await fork();
      expect(retry.exitCode, retry.stderr).toBe(0);
      expect(await worktrees()).toBe(before.worktrees + 1);
      expect(sessions().length).toBe(before.sessions.length + 1);
      expect(readdirSync(path.join(a, ".git", "nudge", "work"))).toEqual([]);
      await git(a, "worktree", "remove", "--force", wt);
    },
    120_000,
  );
});

describe("a fork --worktree killed inside git worktree add", () => {
  it("its admin folder left locked with an empty commondir (every git worktree command fails on it): the next nudge command, any, removes it", async () => {
    const wt = path.join(tempDir("nudge-fork-"), "wt0");
    killed(
      await runNudge(["session", "fork", rec.id, "1", "--worktree", wt], {
        cwd: a,
        env: { ...rec.env, NUDGE_FAULT: "fork-worktree-added:kill" },
      }),
    );
    // What git leaves when killed after it locked the new worktree and made `commondir`, before writing it.
    const admin = path.join(a, ".git", "worktrees", "wt0");
    writeFileSync(path.join(admin, "locked"), "initializing\n");
    writeFileSync(path.join(admin, "commondir"), "");
    expect((await execa("git", ["worktree", "list"], { cwd: a, reject: false })).stderr).toContain("failed to read");

    const list = await runNudge(["session", "list"], { cwd: a, env: rec.env });
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.stderr).toContain(
      `nudge: a fork of session ${rec.id} into ${wt} was cut off (its nudge was killed): what it had done is undone`,
    );
    const worktrees = await execa("git", ["worktree", "list"], { cwd: a, reject: false });
    expect(worktrees.exitCode, worktrees.stderr).toBe(0);
    expect(worktrees.stdout).not.toContain(wt);
    expect(existsSync(admin)).toBe(false);
    expect(existsSync(wt)).toBe(false);
    expect((await runNudge(["session", "gc", "--yes"], { cwd: a, env: rec.env })).exitCode).toBe(0);
  }, 120_000);
});

describe("a killed gc", () => {
  it.each(["gc-hidden", "gc-refs"])(
    "killed at %s while removing a session: the next gc finishes the removal",
    async (point) => {
      const t = await target();
      const imported = await runNudge(["session", "import", archive], { cwd: t.b, env: t.env });
      expect(imported.exitCode, imported.stderr).toBe(0);
      // --older-than 0h: every session is older than that.
      killed(
        await runNudge(["session", "gc", "--older-than", "0h", "--yes"], {
          cwd: t.b,
          env: { ...t.env, NUDGE_FAULT: `${point}:kill` },
        }),
      );
      expect(readdirSync(path.join(t.store, "sessions"))).toEqual([`.${rec.id}.removing`]);
      nothingOutsideStore(t);

      const gc = await runNudge(["session", "gc", "--yes"], { cwd: t.b, env: t.env });
      expect(gc.exitCode, gc.stderr).toBe(0);
      expect(readdirSync(path.join(t.store, "sessions"))).toEqual([]);
      expect(await nudgeRefs(t.b)).toEqual([]);
      expect(existsSync(path.join(t.store, "index", rec.id))).toBe(false);
    },
    120_000,
  );
});
