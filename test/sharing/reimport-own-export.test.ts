/**
 * Importing one's own (masked) export back where it was recorded.
 * Reproduced through the built CLI with the real claude binary and the scripted API on real temp
 * repositories.
 */
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN } from "../support/claude-env.js";
import { git, gitdir, tempDir } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";

let recorded: Recorded | undefined;
afterEach(async () => {
  await recorded?.api.close();
  recorded = undefined;
});

describe("session import", () => {
  it("importing your own export (with a masked secret) back where it was recorded does not refuse", async () => {
    // The export masks a secret typed in a prompt, so its claude transcript differs from the local one.
    // Import refused: "claude already has another version of <id>.jsonl … (from an earlier import?)",
    // exit 1, although the spec says a different session under an existing id gets a fresh id. The
    // hint's --force would replace the local, unmasked transcript and session by the masked copy.
    const repo = await gitdir({ "a.txt": "a\n" });
    recorded = await recordSession(repo, [{ text: "noted" }], ["my token is ghp_abcdefghijklmnopqrstuvwxyz0123456789"]);
    const out = path.join(tempDir("nudge-qa-export-"), "s.tar.gz");
    const exported = await runNudge(["session", "export", recorded.id, "-o", out], { cwd: repo, env: recorded.env });
    expect(exported.exitCode, exported.stderr).toBe(0);
    expect(exported.stdout + exported.stderr).toMatch(/github-token/);
    const imported = await runNudge(["session", "import", out, "--json"], { cwd: repo, env: recorded.env });
    expect(imported.exitCode, imported.stderr).toBe(0);
    const copy = JSON.parse(imported.stdout);
    expect(copy.id).not.toBe(recorded.id); // a version of a session that is here: a fresh id
    expect(copy.claudeFiles.map((f: { state: string }) => f.state)).toEqual(["holds"]);
    // The copy goes on from its own last reply (in a fork of claude's conversation, which is the original here).
    recorded.api.push({ text: "going on" });
    const resumed = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN, "-r", copy.id, "go on"], {
      cwd: repo,
      env: recorded.env,
    });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("going on");
    const request = recorded.api.mainLoopRequests().at(-1)!;
    expect(JSON.stringify(request)).toContain("noted"); // the conversation so far came along
    // Whatever it did, the local recording keeps the prompt as typed.
    const show = JSON.parse((await runNudge(["session", "show", recorded.id, "--json"], { cwd: repo })).stdout);
    expect(show.turns[1].prompt).toContain("ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    expect(await git(repo, "status", "--porcelain")).toBe("");
  });
});
