/**
 * Time travel from inside a live `nudge claude run` (/rewind, /fork), and rewinds that involve
 * commits claude made (--reset-head) or only one half of the state (--code-only, --conversation-only).
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { git, gitdir } from "../support/gitdir.js";
import { readManifestFile, recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";

let recorded: Recorded | undefined;
afterEach(async () => {
  await recorded?.api.close();
  recorded = undefined;
});

const list = async (repo: string) => JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout);

describe("time travel inside a live run", () => {
  it("/rewind 1 puts code and conversation back and records on in a fork; the original keeps its turns", async () => {
    const repo = await gitdir();
    recorded = await recordSession(
      repo,
      [
        { tool: "Write", input: { file_path: path.join(repo, "one.txt"), content: "1\n" } },
        { text: "REPLY-ONE" },
        { tool: "Write", input: { file_path: path.join(repo, "two.txt"), content: "2\n" } },
        { text: "REPLY-TWO" },
        { text: "REPLY-AFTER" },
      ],
      ["PROMPT-ONE", "PROMPT-TWO", "/rewind 1", "PROMPT-AFTER"],
    );
    expect(existsSync(path.join(repo, "one.txt"))).toBe(true);
    expect(existsSync(path.join(repo, "two.txt"))).toBe(false);
    const sent = JSON.stringify(recorded.api.mainLoopRequests().at(-1)!.body.messages);
    expect(sent).toContain("REPLY-ONE");
    expect(sent).toContain("PROMPT-AFTER");
    expect(sent).not.toContain("PROMPT-TWO");

    const sessions = await list(repo);
    expect(sessions).toHaveLength(2);
    const original = sessions.find((s: { parent: unknown }) => s.parent === null);
    const fork = sessions.find((s: { parent: unknown }) => s.parent !== null);
    expect(original.turns).toBe(2);
    expect(fork.parent).toEqual({ id: original.id, turn: 1 });
    expect(readManifestFile(fork.path).turns.map((t) => t.prompt)).toEqual([null, "PROMPT-ONE", "PROMPT-AFTER"]);
    expect(recorded.id).toBe(fork.id); // the run ended recording into the fork
  });

  it("/fork continues in a fork at the last turn, leaving the original as it was", async () => {
    const repo = await gitdir();
    recorded = await recordSession(repo, [{ text: "FIRST" }, { text: "SECOND" }], ["P1", "/fork", "P2"]);
    const sessions = await list(repo);
    const original = sessions.find((s: { parent: unknown }) => s.parent === null);
    const fork = sessions.find((s: { parent: unknown }) => s.parent !== null);
    expect(original.turns).toBe(1);
    expect(fork.parent).toEqual({ id: original.id, turn: 1 });
    expect(fork.turns).toBe(2);
    expect(JSON.stringify(recorded.api.mainLoopRequests().at(-1)!.body.messages)).toContain("FIRST");
  });

  it("a bad /rewind is reported and the session goes on", async () => {
    const repo = await gitdir();
    recorded = await recordSession(repo, [{ text: "FIRST" }, { text: "SECOND" }], ["P1", "/rewind 7", "P2"]);
    expect(recorded.stderr).toMatch(/error: session \w+ has no turn 7/);
    expect(recorded.stderr).toMatch(/hint: its turns are 0 to 1; nudge session show \w+ lists them/);
    // Checked before anything else: the recording goes on in the same claude process.
    expect(recorded.stderr).not.toMatch(/continuing session/);
    const [only] = await list(repo);
    expect(only.turns).toBe(2);
  });
});

describe("rewinds and commits", () => {
  it("says when claude committed since that turn; --reset-head moves the branch back, --undo restores all", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    const base = await git(repo, "rev-parse", "HEAD");
    recorded = await recordSession(
      repo,
      [
        {
          tool: "Bash",
          input: {
            command: "echo c > c.txt && git add c.txt && git commit -qm 'claude commit'",
            description: "commit",
          },
        },
        { text: "committed" },
      ],
      ["commit something"],
    );
    const claudeCommit = await git(repo, "rev-parse", "HEAD");
    expect(claudeCommit).not.toBe(base);
    const indexBefore = readFileSync(path.join(repo, ".git/index"));

    const plain = await runNudge(["session", "rewind", recorded.id, "0", "--code-only", "--yes"], { cwd: repo });
    expect(plain.exitCode, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/commits were made since turn 0 .*pass --reset-head/);
    expect(await git(repo, "rev-parse", "HEAD")).toBe(claudeCommit);
    expect(existsSync(path.join(repo, "c.txt"))).toBe(false);
    expect((await runNudge(["session", "rewind", "--undo", "--yes"], { cwd: repo })).exitCode).toBe(0);

    const reset = await runNudge(["session", "rewind", recorded.id, "0", "--reset-head", "--yes"], { cwd: repo });
    expect(reset.exitCode, reset.stderr).toBe(0);
    expect(await git(repo, "rev-parse", "HEAD")).toBe(base);
    expect(await git(repo, "symbolic-ref", "--short", "HEAD")).toBe("main");
    expect(await git(repo, "status", "--porcelain")).toBe("");
    const backupRef = /backup (refs\/nudge\/backup\/\S+)/.exec(reset.stdout)![1]!;
    expect(await git(repo, "merge-base", "--is-ancestor", claudeCommit, backupRef).then(() => true)).toBe(true);

    expect((await runNudge(["session", "rewind", "--undo", "--yes"], { cwd: repo })).exitCode).toBe(0);
    expect(await git(repo, "rev-parse", "HEAD")).toBe(claudeCommit);
    expect(readFileSync(path.join(repo, ".git/index")).equals(indexBefore)).toBe(true);
    expect(readFileSync(path.join(repo, "c.txt"), "utf8")).toBe("c\n");
  });

  it("--conversation-only leaves the files; --code-only leaves the conversation", async () => {
    const repo = await gitdir();
    recorded = await recordSession(
      repo,
      [
        { tool: "Write", input: { file_path: path.join(repo, "f.txt"), content: "f\n" } },
        { text: "ONE" },
        { text: "TWO" },
      ],
      ["P1", "P2"],
    );
    const conv = await runNudge(["session", "rewind", recorded.id, "1", "--conversation-only", "--yes"], { cwd: repo });
    expect(conv.exitCode, conv.stderr).toBe(0);
    expect(readManifestFile(recorded.dir).rewoundTo).toBe(1);
    expect(existsSync(path.join(repo, "f.txt"))).toBe(true);

    const code = await runNudge(["session", "rewind", recorded.id, "0", "--code-only", "--yes"], { cwd: repo });
    expect(code.exitCode, code.stderr).toBe(0);
    expect(existsSync(path.join(repo, "f.txt"))).toBe(false);
    expect(readManifestFile(recorded.dir).rewoundTo).toBe(1);

    const both = await runNudge(["session", "rewind", recorded.id, "1", "--code-only", "--conversation-only"], {
      cwd: repo,
    });
    expect(both.exitCode).toBe(1);
    expect(both.stderr).toContain("exclude each other");
  });
});
