/**
 * What a user can get wrong around a rewind, and what the machine can refuse, on one real
 * recording (real claude binary, scripted API): each is one `error:` line, one `hint:` line,
 * exit 1, and the work tree, HEAD and index exactly as they were.
 */
import { execa } from "execa";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import os from "node:os";
import { describe, expect, it } from "vitest";
import { procRef } from "../../src/store/locks.js";
import type { Store } from "../../src/store/store.js";
import { workTreeLockFile } from "../../src/store/work-tree-lock.js";
import { git, tempDir } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";
import { recordThreeTurnsForFile } from "../support/three-turns.js";
import { workTreeListing } from "../support/tree-listing.js";

let repo: string;
let id: string;

recordThreeTurnsForFile((recorded) => ({ repo, id } = recorded));

/** The user's whole visible state: files, HEAD, and the index file's bytes. */
async function userState(dir: string) {
  return {
    files: await workTreeListing(dir),
    head: await git(dir, "rev-parse", "HEAD"),
    index: readFileSync(path.join(repo, ".git", "index")).toString("hex"),
  };
}

function expectRefusal(run: { exitCode?: number; stderr: string }, message: RegExp): void {
  expect(run.exitCode, run.stderr).toBe(1);
  expect(run.stderr).toMatch(message);
  expect(run.stderr).toMatch(/^hint: .+$/m);
  expect(run.stderr.trim().split("\n")).toHaveLength(2);
}

describe("rewind refusals", () => {
  it("--undo --dry-run shows what the undo would do and changes nothing", async () => {
    expect((await runNudge(["session", "rewind", id, "1", "--yes"], { cwd: repo })).exitCode).toBe(0);
    const rewound = await userState(repo);

    const dry = await runNudge(["session", "rewind", "--undo", "--dry-run"], { cwd: repo });
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`undo the rewind of session ${id} to turn 1`);
    expect(dry.stdout).toMatch(/^ {2}write {3}renamed\.txt$/m); // turn 3 renamed old-name.txt
    const json = JSON.parse(
      (await runNudge(["session", "rewind", "--undo", "--dry-run", "--json"], { cwd: repo })).stdout,
    );
    expect(json).toMatchObject({ dryRun: true, undo: { sessionId: id, turn: 1 } });
    expect(json.write).toContain("blob.bin");
    expectRefusal(
      await runNudge(["session", "rewind", "--undo", "--code-only"], { cwd: repo }),
      /^error: --undo, --continue and --abort put back or finish everything/,
    );
    expect(await userState(repo)).toEqual(rewound);

    expect((await runNudge(["session", "rewind", "--undo", "--yes"], { cwd: repo })).exitCode).toBe(0);
  });

  it("refuses to rewind from another work tree of the repository: the session's code is not there", async () => {
    const before = await userState(repo);
    const elsewhere = path.join(tempDir(), "linked");
    await git(repo, "worktree", "add", "-q", "--detach", elsewhere);
    const otherBefore = await workTreeListing(elsewhere);
    const run = await runNudge(["session", "rewind", id, "1", "--yes"], { cwd: elsewhere });
    expectRefusal(run, new RegExp(`^error: session ${id} was recorded in ${repo}, not in this work tree`));
    expect(await workTreeListing(elsewhere)).toEqual(otherBefore);
    expect(await userState(repo)).toEqual(before);
    await git(repo, "worktree", "remove", "--force", elsewhere);
  });

  it("--reset-head while another git holds the index lock: refused before any file changes", async () => {
    await git(repo, "commit", "-q", "--allow-empty", "-m", "a commit after the session");
    const before = await userState(repo);
    const lock = path.join(repo, ".git", "index.lock");
    writeFileSync(lock, "");
    try {
      const run = await runNudge(["session", "rewind", id, "1", "--reset-head", "--yes"], { cwd: repo });
      expectRefusal(run, /^error: another git process is working in .+ \(its index is locked\); nothing was changed$/m);
    } finally {
      rmSync(lock);
    }
    expect(await userState(repo)).toEqual(before);
  });

  it("a lock a killed rewind's git left on nudge's private index does not block the next rewind", async () => {
    // The private index a rewind of this work tree stages into (rewind.ts, worktreeIndex), locked as git locks it.
    // Two rewinds at once are kept apart by the work tree's lock (fault-injection.test.ts): under it, this lock is stale.
    const index = path.join(
      repo,
      ".git",
      "nudge",
      "index",
      `worktree-${createHash("sha1").update(repo).digest("hex").slice(0, 12)}`,
    );
    mkdirSync(path.dirname(index), { recursive: true });
    writeFileSync(`${index}.lock`, "");
    const run = await runNudge(["session", "rewind", id, "1", "--yes"], { cwd: repo });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(existsSync(`${index}.lock`)).toBe(false);
    expect((await runNudge(["session", "rewind", "--undo", "--yes"], { cwd: repo })).exitCode).toBe(0);
  });

  it("bad ids, paths and folders get an error and a hint, never a stack trace", async () => {
    const scratch = tempDir();
    const aFile = path.join(scratch, "a-file");
    writeFileSync(aFile, "not a folder\n");
    const before = await userState(repo);
    expectRefusal(await runNudge(["session", "show", ""], { cwd: repo }), /^error: no session id given$/m);
    expectRefusal(
      await runNudge(["session", "list"], { cwd: repo, env: { NUDGE_STORE: aFile } }),
      /^error: the nudge store is not a folder/,
    );
    // A file on the store's path: even a command that only reads says so, rather than "no backups".
    expectRefusal(
      await runNudge(["session", "backups"], { cwd: repo, env: { NUDGE_STORE: path.join(aFile, "store") } }),
      /^error: the nudge store cannot be made at .*: a file stands on its path$/m,
    );
    // Relative, the store would be another one in every folder (and inside the work tree here).
    const relative = await runNudge(["session", "list"], { cwd: repo, env: { NUDGE_STORE: "store-here" } });
    expectRefusal(relative, /^error: NUDGE_STORE must be an absolute path, not store-here/m);
    expect(relative.stderr).toContain(`hint: e.g. NUDGE_STORE="${path.join(repo, "store-here")}"`);
    expect(existsSync(path.join(repo, "store-here"))).toBe(false);
    // Listing every project looks at this repository's store too: the same refusal, not a table.
    expectRefusal(
      await runNudge(["session", "list", "--all-projects"], { cwd: repo, env: { NUDGE_STORE: "store-here" } }),
      /^error: NUDGE_STORE must be an absolute path, not store-here/m,
    );
    // A `~` the shell did not expand is the home folder, not a folder named `~` here.
    const tilde = await runNudge(["session", "list"], { cwd: repo, env: { NUDGE_STORE: "~/nudge-store" } });
    expect(tilde.stderr).toContain(`hint: e.g. NUDGE_STORE="${path.join(os.homedir(), "nudge-store")}"`);
    expectRefusal(await runNudge(["claude", "run", "--cwd", aFile, "hi"], { cwd: repo }), /^error: not a directory: /);
    expectRefusal(
      await runNudge(["session", "fork", id, "1", "--worktree", path.join(repo, "inside")], { cwd: repo }),
      /is inside the repository's work tree$/m,
    );
    expectRefusal(
      await runNudge(["session", "fork", id, "1", "--worktree", path.join(aFile, "wt")], { cwd: repo }),
      /^error: git could not add a worktree at /,
    );
    const unknown = await runNudge(["session", "list", "--frobnicate"], { cwd: repo });
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toBe("error: unknown option '--frobnicate'\nhint: add --help for usage");
    // A store that cannot be made (Node's own recursive mkdir spins forever under /proc).
    const proc = await runNudge(["claude", "run", "hi"], {
      cwd: repo,
      env: { NUDGE_STORE: "/proc/nudge-store" },
      timeout: 20_000,
    });
    expectRefusal(proc, /^error: cannot make the folder \/proc\/nudge-store: no such file or directory$/m);
    expect(await userState(repo)).toEqual(before);
  });

  it("shows a file name with control characters quoted, so it cannot pose as a line of the plan", async () => {
    const evil = "evil\x1b[31mRED\n  write   README.md";
    writeFileSync(path.join(repo, evil), "mine\n");
    try {
      const dry = await runNudge(["session", "rewind", id, "3", "--dry-run"], { cwd: repo, env: { FORCE_COLOR: "0" } });
      expect(dry.exitCode, dry.stderr).toBe(0);
      // The user's own file, in no snapshot: named apart from the turns' files, and quoted.
      expect(dry.stdout).toContain(
        "  changes in none of this session's snapshots (your edits, or another session's work; the backup keeps them):",
      );
      // Quoted in the terminal's one escape style (\x1b for a control byte, as everywhere nudge shows a name).
      expect(dry.stdout).toContain(`    delete     ${JSON.stringify(evil).replace("\\u001b", "\\x1b")}`);
      expect(dry.stdout).not.toContain("\x1b");
      expect(dry.stdout).not.toMatch(/^ {2}write {3}README\.md$/m);
    } finally {
      rmSync(path.join(repo, evil));
    }
  });

  it("names a file of the user's that the rewind brings back 'restore', and one it writes over 'overwrite'", async () => {
    const notes = readFileSync(path.join(repo, "notes.txt"));
    const readme = readFileSync(path.join(repo, "README.md"));
    rmSync(path.join(repo, "notes.txt"));
    writeFileSync(path.join(repo, "README.md"), "# mine now\n");
    try {
      const dry = await runNudge(["session", "rewind", id, "2", "--dry-run"], { cwd: repo, env: { FORCE_COLOR: "0" } });
      expect(dry.exitCode, dry.stderr).toBe(0);
      expect(dry.stdout).toMatch(/^ {4}restore {4}notes\.txt \(you deleted it\)$/m);
      expect(dry.stdout).toMatch(/^ {4}overwrite {2}README\.md$/m);
      expect(dry.stdout).not.toMatch(/overwrite {2}notes\.txt/);
    } finally {
      writeFileSync(path.join(repo, "notes.txt"), notes);
      writeFileSync(path.join(repo, "README.md"), readme);
    }
  });

  it("a command run from a folder that is gone says so", async () => {
    const gone = path.join(repo, "gone-soon");
    const cli = (await import("../support/run-nudge.js")).NUDGE_CLI;
    const run = await execa(
      "sh",
      ["-c", `mkdir '${gone}' && cd '${gone}' && rmdir '${gone}' && exec node '${cli}' session list`],
      { reject: false, env: { NO_COLOR: "1" } },
    );
    expectRefusal(run, /^error: the current folder no longer exists/);
  });

  it("a session recorded from claude's own UI (installed hooks, or --tui) is named so, with no nudge in-session commands hinted", async () => {
    const before = await userState(repo);
    const claude = execa("sleep", ["60"]);
    const bundle = path.join(repo, ".git", "nudge", "sessions", id);
    const manifest = path.join(bundle, "manifest.json");
    const header = readFileSync(manifest, "utf8");
    const lock = (what: string) =>
      JSON.stringify({ host: os.hostname(), owner: procRef(claude.pid!), claude: procRef(claude.pid!), what }) + "\n";
    try {
      // What installed hooks leave while claude runs: the session lock is claude's own, the header says recording.
      writeFileSync(path.join(bundle, "lock"), lock(`recording session ${id} through claude's hooks`));
      writeFileSync(manifest, JSON.stringify({ ...JSON.parse(header), state: "recording" }));
      const hooks = await runNudge(["session", "rewind", id, "1", "--yes"], { cwd: repo });
      expectRefusal(hooks, new RegExp(`^error: session ${id} is being recorded from claude's own UI \\(hooks\\)`));
      expect(hooks.stderr).toContain("hint: end that claude session first");
      expect(hooks.stderr).not.toMatch(/another nudge process|\/undo/);
      rmSync(path.join(bundle, "lock"));
      writeFileSync(manifest, header);
      // What `claude run --tui` holds: the work tree's lock, for the whole session.
      const store = { dir: path.join(repo, ".git", "nudge") } as Store;
      writeFileSync(workTreeLockFile(store, repo), lock(`recording session ${id} in claude's own UI`));
      const tui = await runNudge(["session", "rewind", id, "1", "--yes"], { cwd: repo });
      expectRefusal(tui, new RegExp(`^error: session ${id} is being recorded from claude's own UI \\(hooks\\)`));
      expect(tui.stderr).not.toMatch(/another nudge process|\/undo/);
    } finally {
      claude.kill();
      await claude.catch(() => undefined);
      writeFileSync(manifest, header);
    }
    expect(await userState(repo)).toEqual(before);
  });

  it("a turn whose snapshot was pruned from the repository: refused, with the turn named", async () => {
    const before = await userState(repo);
    const refs = (await git(repo, "for-each-ref", "--format=%(refname)", "refs/nudge/")).split("\n").filter(Boolean);
    for (const ref of refs) await git(repo, "update-ref", "-d", ref);
    await git(repo, "reflog", "expire", "--expire=now", "--all");
    await git(repo, "gc", "-q", "--prune=now");
    const run = await runNudge(["session", "rewind", id, "1", "--yes"], { cwd: repo });
    expectRefusal(run, new RegExp(`^error: turn 1's snapshot of session ${id} is gone from the repository`));
    expect(await userState(repo)).toEqual(before);
  });
});
