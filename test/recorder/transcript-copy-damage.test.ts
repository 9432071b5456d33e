/** A damaged or cut-short transcript copy in a bundle (from QA): said plainly, never used short. */
import { execa } from "execa";
import { existsSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gitdir, tempDir } from "../support/gitdir.js";
import { recordSession, runClaude, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";

let recorded: Recorded | undefined;
afterEach(async () => {
  await recorded?.api.close();
  recorded = undefined;
});

async function twoTurns(): Promise<{ repo: string; gz: string }> {
  const repo = await gitdir();
  recorded = await recordSession(repo, [{ text: "U1" }, { text: "U2" }], ["one", "two"]);
  const claude = path.join(recorded.dir, "claude");
  const gz = path.join(
    claude,
    readdirSync(claude).find((f) => f.endsWith(".jsonl.gz"))!,
  );
  return { repo, gz };
}

describe("the bundle's copy of claude's transcript, damaged", () => {
  it("a flipped byte: export says which file is damaged (exit 1), and writes no archive", async () => {
    const { repo, gz } = await twoTurns();
    const bytes = readFileSync(gz);
    bytes[bytes.length - 10]! ^= 0xff;
    writeFileSync(gz, bytes);
    const out = path.join(tempDir(), "x.tgz");
    const run = await runNudge(["session", "export", recorded!.id, "-o", out], { cwd: repo });
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/^error: the bundle's copy of claude's transcript .*\.jsonl\.gz is damaged: /m);
    expect(run.stderr).toMatch(/^hint: nothing was changed/m);
    expect(run.stderr).not.toMatch(/nudge bug/);
    expect(readdirSync(path.dirname(out))).toEqual([]);
  });

  it("cut short, claude's own transcript gone: -c refuses rather than resume claude without its last turn", async () => {
    const { repo, gz } = await twoTurns();
    truncateSync(gz, readFileSync(gz).length - 20);
    rmSync(path.join(recorded!.env.CLAUDE_CONFIG_DIR!, "projects"), { recursive: true });
    recorded!.api.push({ text: "U3" });
    const before = recorded!.api.mainLoopRequests().length;
    const run = await runClaude(repo, ["-c"], recorded!.env, "three\n");
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toMatch(
      /^error: the bundle's copy of claude's transcript .* is damaged: it holds \d+ bytes of claude's transcript, and the session's turns need \d+$/m,
    );
    expect(recorded!.api.mainLoopRequests().length).toBe(before); // claude was never asked
  });
});

describe("the bundle's copy of claude's transcript, cut short on disk (its last part gone)", () => {
  it("export refuses a transcript shorter than its turns recorded (exit 1), and writes no archive", async () => {
    const { repo, gz } = await twoTurns();
    truncateSync(gz, readFileSync(gz).length - 20);
    const out = path.join(tempDir(), "x.tgz");
    const run = await runNudge(["session", "export", recorded!.id, "-o", out], { cwd: repo });
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toMatch(
      /^error: the bundle's copy of claude's transcript .* is damaged: it holds \d+ bytes of claude's transcript, and the exported turns need \d+$/m,
    );
    expect(run.stderr).not.toMatch(/nudge bug/);
    expect(readdirSync(path.dirname(out))).toEqual([]);
  });

  it("a fork at its last turn refuses rather than give the fork a conversation without that turn, and no session is added", async () => {
    const { repo, gz } = await twoTurns();
    truncateSync(gz, readFileSync(gz).length - 20);
    const worktree = path.join(tempDir(), "fork");
    const run = await runNudge(["session", "fork", recorded!.id, "2", "--worktree", worktree], { cwd: repo });
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toMatch(
      /^error: the bundle's copy of claude's transcript .* is damaged: it holds \d+ bytes of claude's transcript, and the turns it is cut at need \d+$/m,
    );
    const listed = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout) as unknown[];
    expect(listed).toHaveLength(1);
    // Nothing of the fork is left: no worktree made for it.
    expect(existsSync(worktree)).toBe(false);
    expect((await execa("git", ["worktree", "list"], { cwd: repo })).stdout.split("\n")).toHaveLength(1);
  });
});
