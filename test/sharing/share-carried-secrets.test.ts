/**
 * Issue 22, what a QA pass found left: a secret already committed in the base the session started
 * from travelled inside the git bundle when that base was on no remote (the export carries it,
 * with the history it needs, for a teammate who may not have it), while the export said "no
 * secrets found". Every file, name and commit message the bundle packs is scanned now, and such
 * a secret refuses the export, with what to do: push that history so the bundle builds on it.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, tempDir, writeFiles } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { loadCorpus } from "../support/secret-corpus.js";
import { exportBytes, holding, origin } from "./share-support.js";

const secret = loadCorpus().secrets.find(
  (s) => s.kind === "aws-secret-access-key" && s.text.startsWith("AWS_SECRET_ACCESS_KEY="),
)!;
const key = secret.needles[0]!;

describe("a secret in the history an export carries", () => {
  let rec: Recorded;
  let a: string;
  let base: string;
  beforeAll(async () => {
    const { clone } = await origin({ "README.md": "# app\n" });
    a = await clone("ana");
    // Committed here, never pushed: the session's base is on no remote-tracking branch.
    writeFiles(a, { "config/deploy.env": `REGION=eu-west-1\n${secret.text}\n` });
    await git(a, "add", ".");
    await git(a, "commit", "-q", "-m", "deploy settings");
    base = await git(a, "rev-parse", "HEAD");
    rec = await recordSession(
      a,
      [
        { tool: "Write", input: { file_path: path.join(a, "notes.txt"), content: "alpha\n" } },
        { text: "Wrote notes.txt." },
      ],
      ["write notes"],
    );
  }, 90_000);
  afterAll(() => rec?.api.close());

  it("refuses the export, naming the file and why it travels; once pushed, the export builds on it and holds no byte of it", async () => {
    const refused = await runNudge(["session", "export", rec.id, "-o", path.join(tempDir(), "x.tar.gz")], {
      cwd: a,
      env: rec.env,
    });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(
      `error: a secret (aws-secret-access-key) is in the history this export carries: config/deploy.env; it travels because the base commit ${base.slice(0, 10)} is on no remote-tracking branch here, and code cannot be masked`,
    );
    expect(refused.stderr).toContain("hint: push that history first (git push)");
    expect(refused.stderr).not.toContain("    at "); // one line and a hint, no stack

    const allowed = await runNudge(
      ["session", "export", rec.id, "--allow-secrets-in-code", "--json", "-o", path.join(tempDir(), "y.tar.gz")],
      { cwd: a, env: rec.env },
    );
    expect(allowed.exitCode, allowed.stderr).toBe(0);
    expect(JSON.parse(allowed.stdout).codeSecrets).toEqual([
      { kind: "aws-secret-access-key", path: "config/deploy.env", in: "content", turn: null, patch: null },
    ]);

    // What the hint says works: pushed, the base is no longer carried, and nothing of it travels.
    await git(a, "push", "-q", "origin", "HEAD:main");
    await git(a, "fetch", "-q", "origin");
    const archive = path.join(tempDir(), "z.tar.gz");
    const pushed = await runNudge(["session", "export", rec.id, "--json", "-o", archive], { cwd: a, env: rec.env });
    expect(pushed.exitCode, pushed.stderr).toBe(0);
    expect(JSON.parse(pushed.stdout).carried).toEqual([]);
    expect(holding(await exportBytes(archive, a), key)).toEqual([]);
  });
});
