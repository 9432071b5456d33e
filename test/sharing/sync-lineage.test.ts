/**
 * Team sync keeps who continued whom, and says what happened: over one server reached as
 * `git daemon` and as smart HTTP (git http-backend) on loopback, both serving the same repository.
 * A fork made here of a pulled session is published as a fork of the publication; a teammate's
 * published continuation, pulled, is a fork of the session here it continues; a push through the
 * other URL knows the publication as its own; a dry run names the id the push then takes; a push
 * the remote refuses for a reason of its own says so and suggests no duplicate.
 */
import { execa } from "execa";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claudeEnv } from "../support/claude-env.js";
import { git, tempDir } from "../support/gitdir.js";
import { startGitDaemon, startHttpBackend } from "../support/git-servers.js";
import { recordSession, runClaude, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi } from "../support/scripted-api.js";
import { configDir, origin } from "./share-support.js";

let rec: Recorded;
let a: string;
let bare: string;
let clone: (name: string) => Promise<string>;
let daemonUrl: string;
let httpUrl: string;

beforeAll(async () => {
  ({ bare, clone } = await origin({ "README.md": "# app\n" }));
  a = await clone("ana");
  rec = await recordSession(
    a,
    [
      { tool: "Write", input: { file_path: path.join(a, "notes.txt"), content: "alpha\nbeta\n" } },
      { text: "Wrote notes.txt." },
      { tool: "Edit", input: { file_path: path.join(a, "notes.txt"), old_string: "beta", new_string: "BETA" } },
      { text: "Edited notes.txt." },
    ],
    ["write notes", "edit notes"],
  );
  const base = tempDir("nudge-servers-");
  await git(base, "clone", "-q", "--bare", bare, path.join(base, "team.git"));
  daemonUrl = (await startGitDaemon(base)).url("team.git");
  httpUrl = (await startHttpBackend(base)).url("team.git");
}, 120_000);
afterAll(() => rec?.api.close());

async function json<T = any>(args: string[], cwd: string, env: Record<string, string> = {}): Promise<T> {
  const r = await runNudge([...args, "--json"], { cwd, env });
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
}

describe("team sync: lineage and identity", () => {
  it("one server under two URLs: a push through the other one knows the publication as its own", async () => {
    const first = await runNudge(["session", "push", rec.id, "--remote", daemonUrl], { cwd: a });
    expect(first.exitCode, first.stderr).toBe(0);
    const again = await runNudge(["session", "push", rec.id, "--remote", httpUrl], { cwd: a });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toContain(
      `session ${rec.id} is published on ${httpUrl} as ${rec.id} as it is now; nothing to push`,
    );
    expect(again.stderr).not.toContain("--fork");
  }, 60_000);

  it("show of a session fetched, not pulled, points to where it is", async () => {
    const c = await clone("carol");
    expect((await runNudge(["session", "fetch", "--remote", httpUrl], { cwd: c })).exitCode).toBe(0);
    const shown = await runNudge(["session", "show", rec.id.slice(0, 6)], { cwd: c });
    expect(shown.exitCode).toBe(1);
    expect(shown.stderr).toContain(
      `error: no session here matches "${rec.id.slice(0, 6)}": ${rec.id} is a published session fetched from ${httpUrl}, not pulled`,
    );
    expect(shown.stderr).toContain(
      `hint: look at it where it is: nudge session show ${rec.id} --remote ${httpUrl} · or pull it here: nudge session pull ${rec.id} --remote ${httpUrl}`,
    );
    // Nothing fetched by that name: as before.
    expect((await runNudge(["session", "show", "ffff"], { cwd: c })).stderr).toContain(
      'error: no session matches "ffff"',
    );
  }, 60_000);

  it("a dry run names the fresh id the push then takes", async () => {
    const [dry] = await json(["session", "push", rec.id, "--fork", "--dry-run", "--remote", httpUrl], a);
    const [real] = await json(["session", "push", rec.id, "--fork", "--remote", httpUrl], a);
    expect(dry.plan.kind).toBe("fork");
    expect(real.plan.id).toBe(dry.plan.id);
    expect(real.plan.id).not.toBe(rec.id);
    expect((await runNudge(["session", "unpublish", real.plan.id, "--remote", httpUrl], { cwd: a })).exitCode).toBe(0);
  }, 60_000);

  it("lineage survives push and pull both ways", async () => {
    const b = await clone("bob");
    const cfg = configDir();
    expect((await runNudge(["session", "fetch", "--remote", daemonUrl], { cwd: b })).exitCode).toBe(0);
    const pulled = await runNudge(["session", "pull", rec.id, "--remote", daemonUrl], {
      cwd: b,
      env: { CLAUDE_CONFIG_DIR: cfg },
    });
    expect(pulled.exitCode, pulled.stderr).toBe(0);

    // Bob forks the pulled session at turn 1 and publishes the fork: a fork of Ana's publication.
    const fork = await json(["session", "fork", rec.id, "1", "--worktree", path.join(tempDir(), "try")], b, {
      CLAUDE_CONFIG_DIR: cfg,
    });
    const [forked] = await json(["session", "push", fork.id, "--remote", daemonUrl], b);
    expect(forked.plan).toMatchObject({ kind: "new", id: fork.id, forkOf: { id: rec.id, turn: 1 } });

    // Bob continues Ana's session itself and publishes his continuation (a fork under a fresh id).
    // The clone is at the base state the session started from: nothing there is Bob's own.
    const plan = await runNudge(["session", "rewind", rec.id, "2", "--dry-run"], {
      cwd: b,
      env: { CLAUDE_CONFIG_DIR: cfg },
    });
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/^ {2}write {3}notes\.txt$/m);
    expect(plan.stdout).not.toContain("your edits");
    expect(
      (await runNudge(["session", "rewind", rec.id, "2", "--yes"], { cwd: b, env: { CLAUDE_CONFIG_DIR: cfg } }))
        .exitCode,
    ).toBe(0);
    const api = await startScriptedApi([{ text: "We wrote and edited notes.txt." }]);
    try {
      const run = await runClaude(b, ["-r", rec.id], claudeEnv(api, cfg), "what did we do so far?\n");
      expect(run.exitCode, run.stderr).toBe(0);
    } finally {
      await api.close();
    }
    const [continued] = await json(["session", "push", rec.id, "--remote", daemonUrl], b);
    expect(continued.plan).toMatchObject({ kind: "fork", forkOf: { id: rec.id, turn: 2 } });

    // Ana pulls both: each is a fork of her session here.
    expect((await runNudge(["session", "fetch", "--remote", httpUrl], { cwd: a })).exitCode).toBe(0);
    const listed = await json<Array<{ id: string; forkOf: unknown }>>(["session", "list", "--remote", httpUrl], a);
    expect(listed.find((r) => r.id === fork.id)?.forkOf).toEqual({ id: rec.id, turn: 1 });
    const back = await json(["session", "pull", continued.plan.id, "--remote", httpUrl], a, rec.env);
    expect(back).toMatchObject({ status: "imported", idChange: "fresh" });
    const mine = await json<Array<{ id: string; parent: unknown }>>(["session", "list"], a);
    expect(mine.find((s) => s.id === back.id)?.parent).toEqual({ id: rec.id, turn: 2 });
    const table = await runNudge(["session", "list"], { cwd: a });
    expect(table.stdout).toMatch(new RegExp(`^${back.id}\\s.*\\s${rec.id}@2\\s`, "m"));
    expect((await runNudge(["session", "rm", back.id, "--yes"], { cwd: a, env: rec.env })).exitCode).toBe(0);
  }, 120_000);

  it("a push the remote refuses for a reason of its own says so, and suggests no duplicate", async () => {
    const server = path.join(tempDir(), "full.git");
    await git(path.dirname(server), "clone", "-q", "--bare", bare, server);
    // What a full disk looks like to the pusher: the remote's unpacker fails.
    await execa("git", ["config", "receive.maxInputSize", "100"], { cwd: server });
    const refused = await runNudge(["session", "push", rec.id, "--remote", server], { cwd: a });
    expect(refused.exitCode).toBe(1);
    const [error, hint, ...rest] = refused.stderr.split("\n").filter((l) => !l.startsWith("●"));
    // git's own words follow the reason; which of them come last varies with the transport's timing.
    expect(error).toMatch(
      /^error: the remote refused the push \(\[remote rejected\] \(unpacker error\).*\): nothing was published$/,
    );
    expect(hint).toBe(
      `hint: the remote could not take it (a full disk there, a size limit or a hook of the server's): ask whoever runs it, then push again: nudge session push ${rec.id}`,
    );
    expect(rest).toEqual([]);
    expect(refused.stderr).not.toMatch(/--fork|meanwhile/);
  }, 60_000);
});
