/**
 * Issue 22, leak 4: an export written inside the repository (the default folder is the current
 * one) was recorded by the next turn as "your edits" and travelled, secrets and all, inside the
 * next export. Now it is named in .git/info/exclude when written, so no snapshot takes it; a copy
 * that gets into the code anyway refuses the export. `-o -` writes the archive to stdout.
 */
import { execa } from "execa";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, gitdir, tempDir } from "../support/gitdir.js";
import { recordSession, readManifestFile, runClaude, type Recorded } from "../support/record.js";
import { NUDGE_CLI, runNudge } from "../support/run-nudge.js";
import { unpack } from "./share-support.js";

// Made up, built from parts.
const AWS_SECRET = "q8Zr" + "T2mLx9Vb4Nc7Wd1Ke5Hf3Jg6Pa0Ys8Ut2Ri4Oe";
const SLACK = "xoxb-" + "482913570264-5839201746385-" + "Qm7Zr2Tx9Lb4Nc8Wd1Ke5Hf3";

describe("an export written inside the repository", () => {
  let rec: Recorded;
  let a: string;
  /** Outside the work tree, and this test's own (an -o file that exists is refused). */
  const outside = tempDir();
  beforeAll(async () => {
    a = await gitdir({ "README.md": "# app\n" });
    rec = await recordSession(a, [{ text: "Noted." }], [`the aws secret is ${AWS_SECRET} and slack is ${SLACK}`]);
  }, 60_000);
  afterAll(() => rec?.api.close());

  it("is kept out of the next turns' snapshots; a copy Claude puts in the code refuses the export", async () => {
    const raw = await runNudge(["session", "export", rec.id, "--no-redact"], { cwd: a, env: rec.env });
    expect(raw.exitCode, raw.stderr).toBe(0);
    const tarball = `nudge-${rec.id}.tar.gz`;
    expect(raw.stdout).toContain(
      "kept out of your next turns: it is inside the work tree, so .git/info/exclude now names it",
    );
    expect(readFileSync(path.join(a, ".git", "info", "exclude"), "utf8")).toContain(`\n/${tarball}\n`);
    expect(await git(a, "status", "--porcelain")).toBe("");

    rec.api.push({ text: "One more." });
    const more = await runClaude(a, ["-r", rec.id], rec.env, "one more turn\n");
    expect(more.exitCode, more.stderr).toBe(0);
    const m = readManifestFile(rec.dir);
    expect(await git(a, "ls-tree", "-r", "--name-only", m.turns.at(-1)!.snapshot.commit)).toBe("README.md");

    const masked = await runNudge(["session", "export", rec.id, "-o", path.join(outside, "masked.tar.gz")], {
      cwd: a,
      env: rec.env,
    });
    expect(masked.exitCode, masked.stderr).toBe(0);
    // The import line names the file where it is, not its bare name.
    expect(masked.stdout).toContain(`nudge session import ${path.join(outside, "masked.tar.gz")}`);
    for (const [name, bytes] of await unpack(path.join(outside, "masked.tar.gz")))
      expect(bytes.includes(AWS_SECRET) || bytes.includes(SLACK), name).toBe(false);

    // Copied into the code under another name, the export is in a snapshot: refused.
    rec.api.push(
      {
        tool: "Bash",
        input: { command: `mkdir -p backup && cp ${tarball} backup/old.tar.gz`, description: "back it up" },
      },
      { text: "Backed up." },
    );
    const copy = await runClaude(a, ["-r", rec.id], rec.env, "back up the export\n");
    expect(copy.exitCode, copy.stderr).toBe(0);
    const refused = await runNudge(["session", "export", rec.id, "-o", path.join(outside, "again.tar.gz")], {
      cwd: a,
      env: rec.env,
    });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(
      "error: an export of a session is in the code changes: backup/old.tar.gz in turn 3;",
    );
  }, 120_000);

  it("-o - writes the archive to stdout, the same bytes as to a file, and no file named -", async () => {
    // The time of writing pinned, so two exports are byte for byte the same.
    const env = { ...rec.env, SOURCE_DATE_EPOCH: "1700000000" };
    const file = await runNudge(["session", "export", rec.id, "--upto", "1", "-o", path.join(outside, "one.tar.gz")], {
      cwd: a,
      env,
    });
    expect(file.exitCode, file.stderr).toBe(0);
    const piped = await execa("node", [NUDGE_CLI, "session", "export", rec.id, "--upto", "1", "-o", "-"], {
      cwd: a,
      env: { NO_COLOR: "1", ...env },
      encoding: "buffer",
      reject: false,
    });
    expect(piped.exitCode, Buffer.from(piped.stderr).toString()).toBe(0);
    const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
    expect(sha(piped.stdout)).toBe(sha(readFileSync(path.join(outside, "one.tar.gz"))));
    expect(Buffer.from(piped.stderr).toString()).toContain(`exported session ${rec.id} → stdout`);
    expect(existsSync(path.join(a, "-"))).toBe(false);
  }, 60_000);
});
