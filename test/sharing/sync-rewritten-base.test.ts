/**
 * The invariant "rebase, squash and force-push of the user's branches do not orphan a published
 * session": Ana records a session on a commit she pushed, publishes it, then amends that commit
 * and force-pushes, and the server collects its garbage. Bob clones afterwards (his clone never
 * had the commit the session was recorded on) and still pulls the session and reads its turns: the
 * publication pinned the code it builds on. Published again as a fork (Bob's), its id names two
 * publications, and unpublish asks which; Ana's own --fork keeps her original hers; unpublishing
 * removes the pins with it.
 */
import { execa } from "execa";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { git } from "../support/gitdir.js";
import { recordSession } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { configDir, origin } from "./share-support.js";

describe("a published session whose branch was rewritten", () => {
  it("is pulled by a teammate who never had its base commit, and unpublish takes its pins", async () => {
    const { bare, clone } = await origin({ "README.md": "# app\n" });
    const ana = await clone("ana");
    writeFileSync(path.join(ana, "app.txt"), "v1\n");
    await git(ana, "add", "-A");
    await git(ana, "commit", "-q", "-m", "work in progress");
    await git(ana, "push", "-q", "origin", "main");
    const base = (await git(ana, "rev-parse", "HEAD")).trim();
    const rec = await recordSession(
      ana,
      [
        { tool: "Write", input: { file_path: path.join(ana, "notes.txt"), content: "notes\n" } },
        { text: "Wrote notes.txt." },
      ],
      ["write notes"],
    );
    await rec.api.close();
    expect(rec.manifest.repo.baseCommit).toBe(base);
    const pushed = await runNudge(["session", "push", rec.id], { cwd: ana, env: rec.env });
    expect(pushed.exitCode, pushed.stderr).toBe(0);
    expect(pushed.stdout).toContain(`refs/nudge/published/${rec.id}/base/${base}`);

    // The base commit rewritten and force-pushed; the server forgets what no ref reaches.
    writeFileSync(path.join(ana, "app.txt"), "v1, tidied\n");
    await git(ana, "commit", "-q", "-a", "--amend", "-m", "work, tidied");
    await git(ana, "push", "-q", "--force", "origin", "main");
    await git(bare, "reflog", "expire", "--expire=now", "--all");
    await git(bare, "gc", "-q", "--prune=now");
    expect((await execa("git", ["cat-file", "-e", `${base}^{commit}`], { cwd: bare, reject: false })).exitCode).toBe(0);

    // Over the protocol, as from a server (a local clone copies every object the store holds).
    const bob = path.join(path.dirname(await clone("unused")), "bob");
    await git(path.dirname(bob), "clone", "-q", "--no-local", bare, bob);
    for (const [key, value] of Object.entries({
      "user.name": "Bob",
      "user.email": "bob@example.com",
      "commit.gpgSign": "false",
      "gc.auto": "0",
    }))
      await git(bob, "config", key, value);
    expect((await execa("git", ["cat-file", "-e", `${base}^{commit}`], { cwd: bob, reject: false })).exitCode).not.toBe(
      0,
    );
    // A pin the session does not need (planted on the server): never fetched (QA: a hostile remote's pins came in whole).
    const tree = (await execa("git", ["mktree"], { cwd: bare, input: "" })).stdout.trim();
    const stray = (
      await execa("git", ["commit-tree", tree, "-m", "not this session's"], {
        cwd: bare,
        env: { GIT_AUTHOR_NAME: "M", GIT_AUTHOR_EMAIL: "m@x", GIT_COMMITTER_NAME: "M", GIT_COMMITTER_EMAIL: "m@x" },
      })
    ).stdout.trim();
    await git(bare, "update-ref", `refs/nudge/published/${rec.id}/base/${stray}`, stray);
    const bobEnv = { CLAUDE_CONFIG_DIR: configDir() };
    expect((await runNudge(["session", "fetch"], { cwd: bob, env: bobEnv })).exitCode).toBe(0);
    const pulled = await runNudge(["session", "pull", rec.id], { cwd: bob, env: bobEnv });
    expect(pulled.exitCode, pulled.stderr).toBe(0);
    expect((await execa("git", ["cat-file", "-e", stray], { cwd: bob, reject: false })).exitCode).not.toBe(0);
    const shown = await runNudge(["session", "diff", rec.id, "1"], { cwd: bob, env: bobEnv });
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("+notes");
    // Nothing of Bob's moved: his branch is the rewritten one, no ref of the remote's was written.
    expect((await git(bob, "rev-parse", "HEAD")).trim()).toBe((await git(ana, "rev-parse", "HEAD")).trim());
    expect(await git(bob, "for-each-ref", "--format=%(refname)", "refs/remotes", "refs/heads")).not.toContain("nudge");

    // Bob publishes what he pulled as a fork of his own: on his side the id then names two
    // publications, his fork and Ana's original, and unpublish asks which (QA).
    const bobFork = await runNudge(["session", "push", rec.id, "--fork", "--json"], { cwd: bob, env: bobEnv });
    expect(bobFork.exitCode, bobFork.stderr).toBe(0);
    const bobForkId = (JSON.parse(bobFork.stdout) as Array<{ plan: { id: string } }>)[0]!.plan.id;
    const which = await runNudge(["session", "unpublish", rec.id], { cwd: bob, env: bobEnv });
    expect(which.exitCode).toBe(1);
    expect(which.stderr).toContain(
      `error: ${rec.id} names your session here, published on origin as ${bobForkId}, and also a publication ${rec.id} there: nothing was removed`,
    );
    expect(which.stderr).toContain(
      `hint: yours: nudge session unpublish ${bobForkId} · the other one (not published from here): nudge session unpublish ${rec.id} --force`,
    );
    // The start of an id will do, as the help's example has it.
    const bobGone = await runNudge(["session", "unpublish", bobForkId.slice(0, 4)], { cwd: bob, env: bobEnv });
    expect(bobGone.stdout).toBe(`removed published session ${bobForkId} from origin`);

    // Ana publishes hers again as a fork, twice: one fork, and the original stays hers (QA: --fork made nudge forget it).
    const forked = await runNudge(["session", "push", rec.id, "--fork", "--json"], { cwd: ana, env: rec.env });
    expect(forked.exitCode, forked.stderr).toBe(0);
    const forkId = (JSON.parse(forked.stdout) as Array<{ plan: { id: string } }>)[0]!.plan.id;
    const again = await runNudge(["session", "push", rec.id, "--fork", "--json"], { cwd: ana, env: rec.env });
    expect((JSON.parse(again.stdout) as Array<{ plan: { id: string } }>)[0]!.plan.id).toBe(forkId);
    const mineNow = JSON.parse(
      (await runNudge(["session", "list", "--remote", "--json"], { cwd: ana, env: rec.env })).stdout,
    ) as Array<{ id: string; here: string }>;
    expect(
      mineNow
        .filter((r) => r.here === "yours")
        .map((r) => r.id)
        .sort(),
    ).toEqual([rec.id, forkId].sort());
    const fork = await runNudge(["session", "unpublish", forkId.slice(0, 4)], { cwd: ana, env: rec.env });
    expect(fork.stdout).toBe(`removed published session ${forkId} from origin`);
    const gone = await runNudge(["session", "unpublish", rec.id], { cwd: ana, env: rec.env });
    expect(gone.exitCode, gone.stderr).toBe(0);
    expect(gone.stdout).toBe(`removed published session ${rec.id} from origin`);
    expect(await git(bare, "for-each-ref", "--format=%(refname)", "refs/nudge")).toBe("");
  }, 120_000);
});
