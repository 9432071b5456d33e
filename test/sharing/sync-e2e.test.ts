/**
 * Team sync over real git servers started here on loopback — a bare repository path (the code's
 * own origin), `git daemon` with receive-pack, and smart HTTP through `git http-backend` (each of
 * these two a separate repository for sessions): Ana records a session whose first prompt holds a
 * token and pushes it; Bob (another clone, path and CLAUDE_CONFIG_DIR) fetches, lists, pulls,
 * continues it with the real claude (the API request holds Ana's turns) and pushes his
 * continuation, which is published as a fork; Ana fetches and sees it. The token is in no object
 * the server holds (the published exports' git bundles unpacked too); a plain clone of the server
 * gets no session ref; a push that would replace Ana's publication is refused.
 */
import { execa } from "execa";
import { readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claudeEnv } from "../support/claude-env.js";
import { git, tempDir } from "../support/gitdir.js";
import { startGitDaemon, startHttpBackend } from "../support/git-servers.js";
import { readManifestFile, recordSession, runClaude, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi } from "../support/scripted-api.js";
import { configDir, filesUnder, origin } from "./share-support.js";

// Made here from parts, so no credential-shaped string sits in the source.
const SECRET = ["ghp", "_", "Xq7Lm2Rt9Vw4", "Np3Ks8Hd6Fb1", "Zc5Jy0Ue2Ag7"].join("");
const PROMPTS = [`write notes; the deploy token is ${SECRET}`, "edit notes"];

interface Transport {
  name: string;
  /** The server's repository on disk, and the --remote arguments naming it (none: origin). */
  bare: string;
  args: string[];
}

let rec: Recorded;
let a: string;
let bare: string;
let clone: (name: string) => Promise<string>;
let daemonBare: string;
let httpBare: string;
let daemonUrl: string;
let httpUrl: string;
let archive: string;

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
    PROMPTS,
  );
  // Two more servers, each over a repository of its own (sessions kept apart from the code).
  const base = tempDir("nudge-servers-");
  daemonBare = path.join(base, "daemon.git");
  httpBare = path.join(base, "http.git");
  await git(base, "clone", "-q", "--bare", bare, daemonBare);
  await git(base, "clone", "-q", "--bare", bare, httpBare);
  daemonUrl = (await startGitDaemon(base)).url("daemon.git");
  httpUrl = (await startHttpBackend(base)).url("http.git");
  archive = path.join(tempDir(), "ana.tar.gz");
  const exported = await runNudge(["session", "export", rec.id, "-o", archive], { cwd: a, env: rec.env });
  expect(exported.exitCode, exported.stderr).toBe(0);
}, 120_000);
afterAll(() => rec?.api.close());

/** Every object the server holds as `cat-file --batch` prints it, and every object of every published export's git bundle. */
async function serverBytes(server: string): Promise<{ raw: string; bundles: string; exports: number }> {
  const raw = (await execa("git", ["cat-file", "--batch-all-objects", "--batch"], { cwd: server, encoding: "buffer" }))
    .stdout;
  const blobs = (
    await execa("git", ["cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)"], {
      cwd: server,
    })
  ).stdout
    .split("\n")
    .filter((l) => l.endsWith(" blob"))
    .map((l) => l.split(" ")[0]!);
  let bundles = "";
  let exports = 0;
  for (const blob of blobs) {
    const bytes = (await execa("git", ["cat-file", "blob", blob], { cwd: server, encoding: "buffer" })).stdout;
    if (Buffer.from(bytes).subarray(257, 262).toString("latin1") !== "ustar") continue;
    exports++;
    const dir = tempDir("nudge-scan-");
    writeFileSync(path.join(dir, "export.tar"), bytes);
    await execa("tar", ["xf", "export.tar"], { cwd: dir });
    const top = readdirSync(dir).find((n) => n.startsWith("nudge-"))!;
    const repo = path.join(dir, "scan.git");
    await execa("git", ["init", "-q", "--bare", repo]);
    // The bundle is thin against the code's history: the server's own objects complete it.
    writeFileSync(path.join(repo, "objects", "info", "alternates"), path.join(server, "objects") + "\n");
    await execa("git", ["bundle", "unbundle", path.join(dir, top, "git", "session.bundle")], { cwd: repo });
    const packed = (
      await execa("git", ["cat-file", "--batch-all-objects", "--batch", "--buffer"], { cwd: repo, encoding: "buffer" })
    ).stdout;
    bundles += Buffer.from(packed).toString("latin1");
  }
  return { raw: Buffer.from(raw).toString("latin1"), bundles, exports };
}

async function serverRefs(server: string): Promise<string[]> {
  return (await git(server, "for-each-ref", "--format=%(refname) %(objectname)")).split("\n").filter(Boolean);
}

async function listRemote(cwd: string, args: string[]): Promise<Array<Record<string, any>>> {
  const listed = await runNudge(["session", "list", "--remote", ...args.slice(1), "--json"], { cwd });
  expect(listed.exitCode, listed.stderr).toBe(0);
  return JSON.parse(listed.stdout);
}

async function scenario(t: Transport): Promise<void> {
  const remoteArgs = t.args;
  const codeRefs = (await serverRefs(t.bare)).filter((r) => !r.startsWith("refs/nudge/"));

  // Ana publishes the session she used last.
  const pushed = await runNudge(["session", "push", ...remoteArgs], { cwd: a, env: rec.env });
  expect(pushed.exitCode, pushed.stderr).toBe(0);
  expect(pushed.stdout).toMatch(
    new RegExp(`^published session ${rec.id} to .+ \\(2 turns\\): sent [\\d.]+ (bytes|KiB|MiB) for an export of`, "m"),
  );
  expect(pushed.stdout).toMatch(/^ {2}masked: github-token ×\d+$/m);
  const after = await serverRefs(t.bare);
  // Over the code's own remote, the commit the session builds on is pinned beside it (a remote of its own for sessions lacks it: nothing to pin).
  const pin = t.args.length === 0 ? [`refs/nudge/published/${rec.id}/base/${rec.manifest.repo.baseCommit}`] : [];
  expect(after.filter((r) => r.startsWith("refs/nudge/")).map((r) => r.split(" ")[0])).toEqual([
    ...pin,
    `refs/nudge/published/${rec.id}/card`,
    `refs/nudge/published/${rec.id}/data`,
  ]);
  expect(after.filter((r) => !r.startsWith("refs/nudge/"))).toEqual(codeRefs);

  // Bob: another clone, another folder, another claude config.
  const b = await clone(`bob ${t.name}`);
  const cfg = configDir();
  const fetched = await runNudge(["session", "fetch", ...remoteArgs], { cwd: b });
  expect(fetched.exitCode, fetched.stderr).toBe(0);
  expect(fetched.stdout).toContain("has 1 published session (1 new, 0 updated, 0 gone since the last fetch)");
  // Fetching the list brought no session content and touched nothing of Bob's repository.
  expect(await git(b, "for-each-ref", "refs/nudge/")).toBe("");
  const listed = await listRemote(b, ["--remote", ...remoteArgs.slice(1)]);
  expect(listed).toHaveLength(1);
  expect(listed[0]).toMatchObject({
    id: rec.id,
    session: rec.id,
    here: "no",
    author: "Test <test@example.com>",
    branch: "main",
    turns: 2,
    forkOf: null,
    firstPrompt: "write notes; the deploy token is [REDACTED:github-token]",
  });
  const table = await runNudge(["session", "list", "--remote", ...remoteArgs.slice(1)], { cwd: b });
  expect(table.stdout).toMatch(new RegExp(`^${rec.id}\\s+Test <test@example.com>\\s+main\\s+2\\s`, "m"));

  // show, diff and replay read it where it is published, checked as an import is, without pulling it.
  const shown = await runNudge(["session", "show", rec.id, "--remote", ...remoteArgs.slice(1)], {
    cwd: b,
    env: { CLAUDE_CONFIG_DIR: cfg },
  });
  expect(shown.exitCode, shown.stderr).toBe(0);
  expect(shown.stdout).toContain("write notes; the deploy token is [REDACTED:");
  expect(shown.stdout).not.toContain(SECRET);
  expect(shown.stdout).toContain("edit notes");
  const diffed = await runNudge(["session", "diff", rec.id, "2", "--remote", ...remoteArgs.slice(1)], {
    cwd: b,
    env: { CLAUDE_CONFIG_DIR: cfg },
  });
  expect(diffed.exitCode, diffed.stderr).toBe(0);
  expect(diffed.stdout).toContain("-beta\n+BETA");
  const replayed = await runNudge(["session", "replay", rec.id, "--remote", ...remoteArgs.slice(1)], {
    cwd: b,
    env: { CLAUDE_CONFIG_DIR: cfg },
  });
  expect(replayed.exitCode, replayed.stderr).toBe(0);
  expect(replayed.stdout).toContain("Edited notes.txt.");
  expect(await git(b, "for-each-ref", "refs/nudge/")).toBe("");
  expect(filesUnder(cfg)).toEqual([]);
  expect((await runNudge(["session", "list", "--json"], { cwd: b })).stdout).toBe("[]");

  const pulled = await runNudge(["session", "pull", rec.id.slice(0, 6), ...remoteArgs], {
    cwd: b,
    env: { CLAUDE_CONFIG_DIR: cfg },
  });
  expect(pulled.exitCode, pulled.stderr).toBe(0);
  expect(pulled.stdout).toContain(`imported session ${rec.id} from published session ${rec.id} (2 turns)`);
  expect((await listRemote(b, ["--remote", ...remoteArgs.slice(1)]))[0]).toMatchObject({
    id: rec.id,
    here: "pulled",
    local: rec.id,
  });

  // Bob continues it: claude is handed Ana's turns (masked).
  expect(
    (await runNudge(["session", "rewind", rec.id, "2", "--yes"], { cwd: b, env: { CLAUDE_CONFIG_DIR: cfg } })).exitCode,
  ).toBe(0);
  const api = await startScriptedApi([{ text: "We wrote and edited notes.txt." }]);
  try {
    const run = await runClaude(b, ["-r", rec.id], claudeEnv(api, cfg), "what did we do so far?\n");
    expect(run.exitCode, run.stderr).toBe(0);
    const messages = JSON.stringify(api.mainLoopRequests()[0]!.body.messages);
    for (const said of [
      "edit notes",
      "Wrote notes.txt.",
      "Edited notes.txt.",
      "[REDACTED:github-token]",
      "what did we do so far?",
    ])
      expect(messages).toContain(said);
    expect(messages).not.toContain(SECRET);
  } finally {
    await api.close();
  }

  // His push is a fork of Ana's, under a fresh id: hers stays as it was.
  const anaData = after.find((r) => r.startsWith(`refs/nudge/published/${rec.id}/data`))!;
  const forked = await runNudge(["session", "push", ...remoteArgs], { cwd: b, env: { CLAUDE_CONFIG_DIR: cfg } });
  expect(forked.exitCode, forked.stderr).toBe(0);
  const forkId = new RegExp(
    `^published session ${rec.id} to .+ as ([0-9a-f]{10}), a fork of ${rec.id}@2 \\(3 turns\\)`,
    "m",
  ).exec(forked.stdout)?.[1];
  expect(forkId, forked.stdout).toBeDefined();
  expect(await serverRefs(t.bare)).toContain(anaData);

  // Ana sees Bob's fork.
  expect((await runNudge(["session", "fetch", ...remoteArgs], { cwd: a })).stdout).toContain(
    "has 2 published sessions (1 new, 0 updated, 0 gone since the last fetch)",
  );
  const seen = await listRemote(a, ["--remote", ...remoteArgs.slice(1)]);
  expect(seen.find((r) => r.id === forkId)).toMatchObject({
    session: rec.id,
    forkOf: { id: rec.id, turn: 2 },
    turns: 3,
    here: "no",
    lastPrompt: "what did we do so far?",
  });
  expect(seen.find((r) => r.id === rec.id)).toMatchObject({ here: "yours", local: rec.id });

  // Ana pulls Bob's fork: her own session stays as it is, his comes in beside it under a fresh id.
  const back = await runNudge(["session", "pull", forkId!, ...remoteArgs, "--json"], { cwd: a, env: rec.env });
  expect(back.exitCode, back.stderr).toBe(0);
  const backResult = JSON.parse(back.stdout);
  expect(backResult).toMatchObject({
    published: forkId,
    status: "imported",
    sourceId: rec.id,
    idChange: "fresh",
    turns: 3,
  });
  expect((await listRemote(a, ["--remote", ...remoteArgs.slice(1)])).find((r) => r.id === forkId)).toMatchObject({
    here: "pulled",
    local: backResult.id,
  });
  expect(readManifestFile(rec.dir).turns.map((t) => t.n)).toEqual([0, 1, 2]);
  // (removed again: the next scenarios and the hook's test publish the sessions Ana recorded)
  expect((await runNudge(["session", "rm", backResult.id, "--yes"], { cwd: a, env: rec.env })).exitCode).toBe(0);

  // The token is in no object the server holds; the scan did read the sessions (their words are there).
  const scanned = await serverBytes(t.bare);
  expect(scanned.exports).toBe(2);
  for (const text of [scanned.raw, scanned.bundles]) {
    expect(text).not.toContain(SECRET);
    expect(text).toContain("[REDACTED:github-token]");
  }
  expect(scanned.raw).toContain("what did we do so far?");

  // A plain clone of the server gets no session ref; they are there for who asks.
  const plain = path.join(tempDir(), "plain");
  await git(path.dirname(plain), "clone", "-q", t.args[1] ?? bare, plain);
  expect(await git(plain, "for-each-ref")).not.toContain("refs/nudge");
  expect(await git(plain, "ls-remote", "origin")).toContain(`refs/nudge/published/${rec.id}/data`);

  // Carol imported Ana's export from a file: pushing it under Ana's id would replace hers. Refused.
  const c = await clone(`carol ${t.name}`);
  expect(
    (await runNudge(["session", "import", archive], { cwd: c, env: { CLAUDE_CONFIG_DIR: configDir() } })).exitCode,
  ).toBe(0);
  const before = await serverRefs(t.bare);
  const refused = await runNudge(["session", "push", rec.id, ...remoteArgs], { cwd: c });
  expect(refused.exitCode).toBe(1);
  expect(refused.stderr).toContain(
    `error: the remote already has a published session ${rec.id} that was not pushed from here: pushing would replace it`,
  );
  // Hers has no turn Ana's lacks: publishing it beside would publish a duplicate, so that is not suggested.
  expect(refused.stderr).toContain(
    "hint: nothing was pushed; yours is a copy of it with no turn it lacks, so there is nothing to publish: see it: nudge session fetch && nudge session list --remote",
  );
  expect(refused.stderr).not.toContain("--fork");
  expect(await serverRefs(t.bare)).toEqual(before);
}

describe("team sync over git remotes", () => {
  it("over a bare repository path (the code's own origin)", async () => {
    await scenario({ name: "path", bare, args: [] });
  }, 180_000);

  it("over git daemon (a repository of its own for sessions)", async () => {
    await scenario({ name: "daemon", bare: daemonBare, args: ["--remote", daemonUrl] });
  }, 180_000);

  it("over smart HTTP (git http-backend)", async () => {
    await scenario({ name: "http", bare: httpBare, args: ["--remote", httpUrl] });
  }, 180_000);

  it("pushing again after another turn updates Ana's publication by a fast-forward that sends the new turn only; unpublish removes it", async () => {
    const server = path.join(tempDir(), "again.git");
    await git(path.dirname(server), "clone", "-q", "--bare", bare, server);
    const first = await runNudge(["session", "push", rec.id, "--remote", server, "--json"], { cwd: a });
    expect(first.exitCode, first.stderr).toBe(0);
    const api = await startScriptedApi([
      { tool: "Write", input: { file_path: path.join(a, "more.txt"), content: "gamma\n" } },
      { text: "Wrote more.txt." },
    ]);
    try {
      const run = await runClaude(a, ["-r", rec.id], claudeEnv(api, rec.env.CLAUDE_CONFIG_DIR!), "write more\n");
      expect(run.exitCode, run.stderr).toBe(0);
    } finally {
      await api.close();
    }
    const dataBefore = await git(server, "rev-parse", `refs/nudge/published/${rec.id}/data`);
    const again = await runNudge(["session", "push", rec.id, "--remote", server, "--json"], { cwd: a });
    expect(again.exitCode, again.stderr).toBe(0);
    const [result] = JSON.parse(again.stdout);
    expect(result).toMatchObject({ plan: { kind: "update", id: rec.id, parent: dataBefore }, turns: 3 });
    expect(await git(server, "rev-parse", `refs/nudge/published/${rec.id}/data^`)).toBe(dataBefore);
    // The whole export is re-sent? No: the new commit's export is a delta against the last one.
    expect(result.sentBytes).toBeGreaterThan(0);
    expect(result.sentBytes).toBeLessThan(result.exportBytes / 4);
    // Nothing new: nothing pushed.
    const third = await runNudge(["session", "push", rec.id, "--remote", server], { cwd: a });
    expect(third.stdout).toContain("as it is now; nothing to push");

    // Ana's repository holds her sessions' snapshot refs and nothing of the sync: that is in nudge's own repository.
    expect(
      (await git(a, "for-each-ref", "--format=%(refname)"))
        .split("\n")
        .filter(
          (r) =>
            !r.startsWith("refs/nudge/sessions/") && !r.startsWith("refs/remotes/") && !r.startsWith("refs/heads/"),
        ),
    ).toEqual([]);

    // Unpublish: hers, at once; someone else's only with --force.
    const dry = await runNudge(["session", "unpublish", rec.id, "--remote", server, "--dry-run"], { cwd: a });
    expect(dry.stdout).toBe(`would remove published session ${rec.id} from ${server}`);
    expect(await git(server, "for-each-ref", "refs/nudge/")).not.toBe("");
    const gone = await runNudge(["session", "unpublish", rec.id, "--remote", server], { cwd: a });
    expect(gone.exitCode, gone.stderr).toBe(0);
    expect(gone.stdout).toBe(`removed published session ${rec.id} from ${server}`);
    expect(await git(server, "for-each-ref", "refs/nudge/")).toBe("");
    expect((await runNudge(["session", "push", rec.id, "--remote", server], { cwd: a })).exitCode).toBe(0);
    const other = await clone("carol unpublish");
    const notHers = await runNudge(["session", "unpublish", rec.id, "--remote", server], { cwd: other });
    expect(notHers.exitCode).toBe(1);
    expect(notHers.stderr).toContain(`error: published session ${rec.id} on ${server} was not pushed from here`);
    expect(await git(server, "for-each-ref", "refs/nudge/")).not.toBe("");
    expect(
      (await runNudge(["session", "unpublish", rec.id, "--remote", server, "--force"], { cwd: other })).stdout,
    ).toBe(`removed published session ${rec.id} from ${server} (not published from here)`);
    expect(await git(server, "for-each-ref", "refs/nudge/")).toBe("");

    // A push killed after the remote took it, before Ana's clone recorded it: the next push knows it as hers.
    const killed = await runNudge(["session", "push", rec.id, "--remote", server], {
      cwd: a,
      env: { NUDGE_FAULT: "publish-pushed:kill" },
    });
    expect(killed.signal).toBe("SIGKILL");
    expect(await git(server, "for-each-ref", "--format=%(refname)", "refs/nudge/")).toBe(
      `refs/nudge/published/${rec.id}/card\nrefs/nudge/published/${rec.id}/data`,
    );
    // Its work folder goes at the next command of any kind, which sees its nudge is dead.
    const work = path.join(a, ".git", "nudge", "work");
    expect(readdirSync(work).filter((n) => n.startsWith("publish-"))).toHaveLength(1);
    expect((await runNudge(["session", "list"], { cwd: a })).exitCode).toBe(0);
    expect(readdirSync(work)).toEqual([]);
    const settled = await runNudge(["session", "push", rec.id, "--remote", server], { cwd: a });
    expect(settled.exitCode, settled.stderr).toBe(0);
    expect(settled.stdout).toContain(
      `session ${rec.id} is published on ${server} as ${rec.id} as it is now; nothing to push`,
    );
  }, 120_000);
});

describe("nudge.push auto through the pre-push hook", () => {
  it("publishes the sessions of the branch pushed only once asked, says so on the push's output, and never replaces a hook of the user's", async () => {
    const server = path.join(tempDir(), "team.git");
    await git(path.dirname(server), "clone", "-q", "--bare", bare, server);
    await git(a, "remote", "add", "team", server);
    const installed = await runNudge(["hooks", "install"], { cwd: a });
    expect(installed.exitCode, installed.stderr).toBe(0);
    expect(installed.stdout).toContain(`pre-push hook installed: ${path.join(a, ".git", "hooks", "pre-push")}`);
    expect((await runNudge(["hooks", "install"], { cwd: a })).stdout).toContain("pre-push hook already installed");

    /** A commit of Ana's on main, then `git push [flags] team main`. */
    const commitAndPush = async (text: string, flags: string[] = []) => {
      writeFileSync(path.join(a, "mine.txt"), `${text}\n`);
      await git(a, "add", "mine.txt");
      await git(a, "commit", "-q", "-m", text);
      return execa("git", ["push", ...flags, "team", "main"], { cwd: a, reject: false });
    };
    // Installed but not turned on: a push publishes nothing and says nothing.
    const quiet = await commitAndPush("one");
    expect(quiet.exitCode, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toContain("nudge:");
    expect(await git(server, "for-each-ref", "refs/nudge/")).toBe("");

    await git(a, "config", "nudge.push", "auto");
    // From QA: a dry run publishes nothing (git runs the hook for it too, without saying so).
    const dry = await commitAndPush("two", ["--dry-run"]);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stderr).toContain("nudge: git push --dry-run: no session published");
    expect(await git(server, "for-each-ref", "refs/nudge/")).toBe("");
    // From QA: nudge.remote naming no remote does not stop the branch's push.
    await git(a, "config", "nudge.remote", "nosuchremote");
    const blocked = await commitAndPush("two and a half");
    expect(blocked.exitCode, blocked.stderr).toBe(0);
    expect(blocked.stderr).toContain("nudge: sessions were not published (see above); the push goes on");
    expect(await git(server, "rev-parse", "main")).toBe(await git(a, "rev-parse", "HEAD"));
    await git(a, "config", "--unset", "nudge.remote");
    const loud = await commitAndPush("three");
    expect(loud.exitCode, loud.stderr).toBe(0);
    expect(loud.stderr).toContain("nudge: publishing 1 session of main to team (git config nudge.push auto)");
    expect(loud.stderr).toMatch(new RegExp(`nudge: published session ${rec.id} to team \\(\\d turns\\)`));
    // Its card and data, and the commit it builds on pinned (the branch went to this remote too).
    expect(await git(server, "for-each-ref", "--format=%(refname)", "refs/nudge/")).toBe(
      `refs/nudge/published/${rec.id}/base/${rec.manifest.repo.baseCommit}\nrefs/nudge/published/${rec.id}/card\nrefs/nudge/published/${rec.id}/data`,
    );
    // The branch went too, and Ana's repository got no ref of the sync.
    expect(await git(server, "rev-parse", "main")).toBe(await git(a, "rev-parse", "HEAD"));
    expect(await git(a, "for-each-ref", "refs/nudge/published/", "refs/nudge/remote/")).toBe("");

    const removed = await runNudge(["hooks", "uninstall"], { cwd: a });
    expect(removed.stdout).toContain("pre-push hook removed");
    writeFileSync(path.join(a, ".git", "hooks", "pre-push"), "#!/bin/sh\necho mine\n", { mode: 0o755 });
    const refused = await runNudge(["hooks", "install"], { cwd: a });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain("is a pre-push hook of your own: nudge leaves it alone");
    expect(refused.stderr).toContain('hooks pre-push "$@"');
  }, 120_000);
});
