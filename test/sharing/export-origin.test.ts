/**
 * What an export says about where and when it came from (issue 22, item 13): the time it was
 * written (not the session's last update; nothing at all for an export that does not say), and the
 * root commit of the exporter's history, so that an import into another project says so instead of
 * suggesting a `git fetch` that could never help; and a replay there shows this clone's paths.
 * Real claude, scripted API, real clones.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, gitdir, tempDir, writeFiles } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { configDir, origin, repack } from "./share-support.js";

let rec: Recorded;
let a: string;
let behind: string;
let stale: string;
let archive: string;
let exportStarted: string;

beforeAll(async () => {
  const o = await origin({ "README.md": "# app\n" });
  a = await o.clone("ana");
  // A clone made before Ana's next commit: the same project, lacking what the session builds on.
  behind = await o.clone("bob behind");
  stale = await o.clone("bob stale");
  writeFiles(a, { "lib.js": "export const x = 1;\n" });
  await git(a, "add", "lib.js");
  await git(a, "commit", "-q", "-m", "add lib");
  await git(a, "push", "-q", "origin", "main");
  rec = await recordSession(
    a,
    [
      { tool: "Write", input: { file_path: path.join(a, "notes.txt"), content: "alpha\n" } },
      { text: "Wrote notes.txt." },
    ],
    [`write notes in ${a}`],
  );
  exportStarted = new Date().toISOString();
  const exported = await runNudge(["session", "export", rec.id, "-o", "out.tar.gz"], { cwd: a, env: rec.env });
  expect(exported.exitCode, exported.stderr).toBe(0);
  archive = path.join(a, "out.tar.gz");
}, 90_000);
afterAll(() => rec?.api.close());

const importInto = (repo: string, file = archive) =>
  runNudge(["session", "import", file], { cwd: repo, env: { CLAUDE_CONFIG_DIR: configDir() } });

describe("when an export was made", () => {
  it("import and session show say when it was written, not when the session was last updated", async () => {
    await git(behind, "pull", "-q", "--ff-only");
    const run = await importInto(behind);
    expect(run.exitCode, run.stderr).toBe(0);
    const at = /^ {2}exported by Test <test@example\.com> from .+ on (\S+)$/m.exec(run.stdout)?.[1];
    expect(at, run.stdout).toBeDefined();
    expect(at! >= exportStarted, `${at} is before the export began (${exportStarted})`).toBe(true);
    expect(at).not.toBe(rec.manifest.updatedAt);
    const show = await runNudge(["session", "show", rec.id], { cwd: behind });
    expect(show.stdout).toContain(
      `imported: exported by Test <test@example.com> from ${a} on ${at} (session ${rec.id} there)`,
    );
  });

  it("an export that does not say when it was written (an older nudge's) says nothing rather than the session's time", async () => {
    const unsaid = await repack(
      archive,
      () => undefined,
      (index) => delete index.exported.writtenAt,
    );
    const run = await importInto(await gitdirWithOrigin(), unsaid);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(`^ {2}exported by Test <test@example\\.com> from ${a.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`, "m"),
    );
    expect(run.stdout).not.toContain(rec.manifest.updatedAt);
  });

  it("SOURCE_DATE_EPOCH pins the time, so the same session exports to the same bytes", async () => {
    const env = { ...rec.env, SOURCE_DATE_EPOCH: "1700000000" };
    const one = await runNudge(["session", "export", rec.id, "-o", "pinned-1.tar.gz", "--json"], { cwd: a, env });
    const two = await runNudge(["session", "export", rec.id, "-o", "pinned-2.tar.gz"], { cwd: a, env });
    expect([one.exitCode, two.exitCode]).toEqual([0, 0]);
    expect(readFileSync(path.join(a, "pinned-1.tar.gz")).equals(readFileSync(path.join(a, "pinned-2.tar.gz")))).toBe(
      true,
    );
    const imported = await importInto(await gitdirWithOrigin(), path.join(a, "pinned-1.tar.gz"));
    expect(imported.stdout).toContain(" on 2023-11-14T22:13:20.000Z");
  });
});

describe("a replay in the importing clone", () => {
  it("shows the session's paths in this clone, none of the exporter's", async () => {
    const b = await gitdirWithOrigin();
    expect((await importInto(b)).exitCode).toBe(0);
    const replay = await runNudge(["session", "replay", rec.id, "-v"], { cwd: b });
    expect(replay.exitCode, replay.stderr).toBe(0);
    expect(replay.stdout).toContain("Write(notes.txt)");
    // Its turn lines too: the prompt names the exporter's folder.
    expect(replay.stdout).toContain(`write notes in ${b}`);
    expect(replay.stdout).not.toContain(a);
  });
});

describe("an import into another project", () => {
  it("says the session belongs to another project, not to fetch a commit", async () => {
    const unrelated = await gitdir({ "other.txt": "another project\n" });
    const run = await importInto(unrelated);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(
      `error: this repository is another project: the session was recorded in ${a}, whose history begins at `,
    );
    expect(run.stderr).toContain("hint: import it into a clone of the repository it was recorded in");
    expect(run.stderr).not.toContain("fetch");
  });

  it("an export carrying its whole history (made where no remote has it) is refused there too, and imports into a clone", async () => {
    const solo = await gitdir({ "README.md": "# solo\n" });
    const recorded = await recordSession(
      solo,
      [
        { tool: "Write", input: { file_path: path.join(solo, "notes.txt"), content: "solo\n" } },
        { text: "Wrote notes.txt." },
      ],
      ["write notes"],
    );
    try {
      const exported = await runNudge(["session", "export", recorded.id, "-o", "solo.tar.gz"], {
        cwd: solo,
        env: recorded.env,
      });
      expect(exported.exitCode, exported.stderr).toBe(0);
      const file = path.join(solo, "solo.tar.gz");
      const unrelated = await gitdir({ "other.txt": "another project\n" });
      const run = await importInto(unrelated, file);
      expect(run.exitCode, run.stdout).toBe(1);
      expect(run.stderr).toContain(
        `error: this repository is another project: the session was recorded in ${solo}, whose history begins at `,
      );
      expect(await git(unrelated, "for-each-ref", "refs/nudge/")).toBe("");
      // A clone of it is the same project.
      const clone = path.join(tempDir(), "clone");
      await git(solo, "clone", "-q", solo, clone);
      const imported = await importInto(clone, file);
      expect(imported.exitCode, imported.stderr).toBe(0);
    } finally {
      await recorded.api.close();
    }
  });

  it("a clone of the same project that lacks the commit the session builds on is still told to fetch it", async () => {
    const run = await importInto(stale);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(
      `this repository lacks commit ${rec.manifest.repo.baseCommit} (on origin/main where it was exported)`,
    );
    expect(run.stderr).toContain("hint: fetch it: git fetch origin main, then import again");
  });
});

/** A repository holding Ana's main as origin/main: where a pinned export imports. */
async function gitdirWithOrigin(): Promise<string> {
  const repo = await gitdir();
  await git(repo, "fetch", "-q", path.join(a, ".git"), "main:refs/remotes/origin/main");
  return repo;
}
