/**
 * The pre-push hook publishes nothing on a dry run, however git is told (combined short flags, an
 * abbreviated --dry-run, after the refspecs, through an alias or a shell alias, with git's own
 * options before push), and nothing when it cannot tell; an option that only looks like one
 * (`-on`: push option "n") is no dry run; a branch pushed as HEAD (`git push team HEAD`) is the
 * checked-out branch. Each is a real `git push` to a real bare repository
 * running the hook nudge installs; that the server's branch did not move shows git took it as a
 * dry run too. Real claude, scripted API, for the session to publish.
 */
import { execa } from "execa";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, gitdir, tempDir } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";

let repo: string;
let server: string;
let rec: Recorded;
let n = 0;

beforeAll(async () => {
  repo = await gitdir();
  rec = await recordSession(repo, [{ text: "Nothing to change." }], ["look around"]);
  server = path.join(tempDir(), "team.git");
  await git(path.dirname(server), "init", "-q", "--bare", server);
  // `-o n` is refused by a server that takes no push options: this one takes them.
  await git(server, "config", "receive.advertisePushOptions", "true");
  await git(repo, "remote", "add", "team", server);
  await git(repo, "push", "-q", "team", "main");
  const installed = await runNudge(["hooks", "install"], { cwd: repo });
  expect(installed.exitCode, installed.stderr).toBe(0);
  await git(repo, "config", "nudge.push", "auto");
  await git(repo, "config", "alias.p", "push -n");
  await git(repo, "config", "alias.pq", "p -q");
  await git(repo, "config", "alias.sp", "!git push -vn");
}, 120_000);
afterAll(() => rec?.api.close());

/** A new commit, then `git <args>`; what it printed, and whether the server's main and nudge refs moved. */
async function push(args: string[]) {
  writeFileSync(path.join(repo, "mine.txt"), `${++n}\n`);
  await git(repo, "add", "mine.txt");
  await git(repo, "commit", "-q", "-m", `commit ${n}`);
  const before = await git(server, "rev-parse", "main");
  const run = await execa("git", args, { cwd: repo, reject: false });
  return {
    run,
    moved: (await git(server, "rev-parse", "main")) !== before,
    published: (await git(server, "for-each-ref", "refs/nudge/")) !== "",
  };
}

describe("the pre-push hook on a dry run", () => {
  it.each([
    "-vn",
    "-qn",
    "-nq",
    "-fnv",
    "--dry-run",
    "--dry",
    "--dr -v",
    "--porcelain -un",
    "--receive-pack git-receive-pack -qn",
  ])("git push %s team main publishes nothing", async (spelling) => {
    const { run, moved, published } = await push(["push", ...spelling.split(" "), "team", "main"]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain("nudge: git push --dry-run: no session published");
    expect(moved).toBe(false);
    expect(published).toBe(false);
  });

  it.each([
    [["push", "team", "main", "-n"], "after the refspec"],
    [["p", "team", "main"], "alias p = push -n"],
    [["pq", "team", "main"], "alias pq = p -q (an alias of an alias)"],
    [["sp", "team", "main"], "shell alias sp = !git push -vn"],
    [
      ["-C", ".", "-c", "push.default=current", "--no-pager", "push", "-vn", "team", "main"],
      "git's own options before push",
    ],
    [["push", "-n", "team", "HEAD"], "the branch named as HEAD"],
  ])("git %j (%s) publishes nothing", async (args) => {
    const { run, moved, published } = await push(args);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain("nudge: git push --dry-run: no session published");
    expect(moved).toBe(false);
    expect(published).toBe(false);
  });

  it("--dry-run=yes is refused by git itself before any hook runs", async () => {
    const { run, moved, published } = await push(["push", "--dry-run=yes", "team", "main"]);
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).not.toContain("nudge:");
    expect([moved, published]).toEqual([false, false]);
  });

  it("the hook run outside any git push cannot tell, says why, and publishes nothing", async () => {
    const head = (await git(repo, "rev-parse", "HEAD")).trim();
    const run = await execa("sh", [path.join(repo, ".git", "hooks", "pre-push"), "team", server], {
      cwd: repo,
      reject: false,
      input: `refs/heads/main ${head} refs/heads/main ${"0".repeat(40)}\n`,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^nudge: cannot tell whether this push is a dry run \(.+\): no session published$/);
    expect(await git(server, "for-each-ref", "refs/nudge/")).toBe("");
  });

  // Last: these publish. `-on` is the push option "n" (git sends it to the server), and a later --no-dry-run undoes -n.
  it.each(["-on", "-n --no-dry-run"])("git push %s team main is no dry run: it publishes", async (spelling) => {
    const { run, moved, published } = await push(["push", ...spelling.split(" "), "team", "main"]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain("nudge: publishing 1 session of main to team (git config nudge.push auto)");
    expect(moved).toBe(true);
    expect(published).toBe(true);
  });

  // git hands the hook `HEAD <id> refs/heads/main <id>` for these: HEAD is the checked-out branch.
  it.each(["HEAD", "@", "HEAD:refs/heads/main"])(
    "git push team %s publishes the sessions of the checked-out branch",
    async (refspec) => {
      const { run, moved } = await push(["push", "team", refspec]);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stderr).toContain("nudge: publishing 1 session of main to team (git config nudge.push auto)");
      expect(run.stderr).toContain(rec.id);
      expect(moved).toBe(true);
    },
  );
});
