/**
 * Issue 22, what a QA pass found left: a secret in a file's name, in a symbolic link's target or
 * in the branch the session ran on travelled in the patch, the git bundle and the manifest while
 * the export said "no secrets found". Names and link targets are part of git's trees, so they are
 * refused like code; the branch is metadata, masked like the conversation.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, tempDir } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { loadCorpus } from "../support/secret-corpus.js";
import { exportBytes, holding, origin } from "./share-support.js";

const corpus = loadCorpus().secrets;
const value = (kind: string, pattern: RegExp) =>
  pattern.exec(corpus.find((s) => s.kind === kind && pattern.test(s.text))!.text)![0];
const akia = value("aws-access-key-id", /AKIA[A-Z0-9]{16}/);
const ghp = value("github-token", /ghp_[A-Za-z0-9]{36}/);
const hook = value("slack-webhook", /https:\/\/hooks\.slack\.com\/services\/\S+/);

describe("secrets in names, link targets and the branch", () => {
  let rec: Recorded;
  let a: string;
  beforeAll(async () => {
    const { clone } = await origin({ "README.md": "# app\n" });
    a = await clone("ana");
    await git(a, "checkout", "-q", "-b", `feat/${akia}`);
    rec = await recordSession(
      a,
      [
        { tool: "Write", input: { file_path: path.join(a, "tokens", `${ghp}.txt`), content: "rotated\n" } },
        { text: "Wrote it." },
        { tool: "Bash", input: { command: `ln -s '${hook}' notify`, description: "link the webhook" } },
        { text: "Linked." },
      ],
      ["note which token was rotated", "link the webhook"],
    );
  }, 90_000);
  afterAll(() => rec?.api.close());

  it("refuses a secret in a file's name and in a link's target, naming each, as it refuses one in a file", async () => {
    const out = await runNudge(["session", "export", rec.id, "-o", path.join(tempDir(), "x.tar.gz")], {
      cwd: a,
      env: rec.env,
    });
    expect(out.exitCode).toBe(1);
    expect(out.stderr).toContain(
      `error: a secret (github-token) is in the code changes: the name tokens/${ghp}.txt in turn 1 (and 1 more: the target of the link notify in turn 2); code cannot be masked`,
    );
    expect(out.stderr).toContain(
      "hint: export the turns before it (--upto 0), or pass --allow-secrets-in-code to export the code as it is",
    );
    const allowed = await runNudge(
      ["session", "export", rec.id, "--allow-secrets-in-code", "--json", "-o", path.join(tempDir(), "y.tar.gz")],
      { cwd: a, env: rec.env },
    );
    expect(allowed.exitCode, allowed.stderr).toBe(0);
    const found = (
      JSON.parse(allowed.stdout).codeSecrets as Array<{ kind: string; path: string; in: string; turn: number }>
    ).map((s) => `${s.turn} ${s.in} ${s.path} ${s.kind}`);
    expect(found).toEqual([`1 name tokens/${ghp}.txt github-token`, "2 link target notify incoming-webhook"]); // secretlint's name for a Slack webhook
  });

  it("masks the branch in the manifest (and wherever claude wrote it): no byte of it in the export or its git objects", async () => {
    const archive = path.join(tempDir(), "all.tar.gz");
    const out = await runNudge(["session", "export", rec.id, "--allow-secrets-in-code", "--json", "-o", archive], {
      cwd: a,
      env: rec.env,
    });
    expect(out.exitCode, out.stderr).toBe(0);
    const bytes = await exportBytes(archive, a);
    expect(JSON.parse(bytes.get("session/manifest.json")!).repo.branch).toBe("feat/[REDACTED:aws-access-key-id]");
    expect(JSON.parse(out.stdout).masked).toContainEqual({
      kind: "aws-access-key-id",
      file: "session/manifest.json",
      count: 1,
      turns: [],
    });
    expect(holding(bytes, akia)).toEqual([]);
    // The code was let through on purpose: the name and the link are in it, as the output said.
    expect(holding(bytes, ghp)).toContain("git objects");
  });
});
