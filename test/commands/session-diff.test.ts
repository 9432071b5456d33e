/**
 * `nudge session diff` on a real recording: the real claude binary, driven by the scripted API,
 * writes a file, edits it, then writes a binary file and renames another with Bash. One session
 * is recorded for the whole file; the tests only read it.
 */
import { describe, expect, it } from "vitest";
import { gitdir } from "../support/gitdir.js";
import { recordSession } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { recordThreeTurnsForFile } from "../support/three-turns.js";

let repo: string;
let id: string;

recordThreeTurnsForFile((recorded) => ({ repo, id } = recorded));

// runNudge's stdout has its final newline stripped (execa's default), so exact matches end without one.
const diff = (...args: string[]) => runNudge(["session", "diff", ...args], { cwd: repo });

describe("nudge session diff", () => {
  it("shows a turn's edit as a unified diff", async () => {
    const run = await diff(id, "2");
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^diff --git a\/notes\.txt b\/notes\.txt\n(.*\n){3}@@ -1,3 \+1,3 @@\n alpha\n-beta\n\+BETA\n gamma$/,
    );
  });

  it("names a binary file with its size instead of dumping it, and shows a rename as a rename", async () => {
    const run = await diff(id.slice(0, 4), "3");
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain("Binary file blob.bin added (10 bytes)\n");
    expect(run.stdout).not.toMatch(/\u0000|GIT binary patch|Binary files .* differ/);
    expect(run.stdout).toMatch(/^rename from old-name\.txt\nrename to renamed\.txt$/m);
  });

  it("--stat lists each file and the right totals", async () => {
    const turn3 = await diff(id, "3", "--stat");
    expect(turn3.stdout).toBe(
      [
        " blob.bin                    | Bin 0 -> 10 bytes",
        " old-name.txt => renamed.txt |   0",
        " 2 files changed, 0 insertions(+), 0 deletions(-)",
      ].join("\n"),
    );
    const turn2 = await diff(id, "2", "--stat");
    expect(turn2.stdout).toBe(" notes.txt | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)");
  });

  it("--from 0 --to 3 covers every turn's changes, but not the starting state", async () => {
    const run = await diff(id, "--from", "0", "--to", "3", "--stat");
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^ blob\.bin +\| Bin 0 -> 10 bytes$/m);
    expect(run.stdout).toMatch(/^ notes\.txt +\| +3 \+\+\+$/m);
    expect(run.stdout).toMatch(/^ old-name\.txt => renamed\.txt +\| +0$/m);
    expect(run.stdout).toMatch(/ 3 files changed, 3 insertions\(\+\)$/);
    expect(run.stdout).not.toContain("draft.md");
  });

  it("turn 0 is the uncommitted work the session started from", async () => {
    const run = await diff(id, "0");
    expect(run.stdout).toMatch(/^\+\+\+ b\/draft\.md\n@@ -0,0 \+1 @@\n\+uncommitted at the start$/m);
  });

  it("--json lists the files", async () => {
    const run = await diff(id, "3", "--json");
    expect(run.exitCode, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      id,
      from: 2,
      to: 3,
      sharedWith: [],
      files: [
        {
          path: "blob.bin",
          status: "added",
          insertions: 0,
          deletions: 0,
          binary: true,
          oldMode: null,
          newMode: "100644",
          nowIgnored: false,
        },
        {
          path: "renamed.txt",
          oldPath: "old-name.txt",
          status: "renamed",
          insertions: 0,
          deletions: 0,
          binary: false,
          oldMode: "100644",
          newMode: "100644",
          nowIgnored: false,
        },
      ],
    });
    expect(JSON.parse((await diff(id, "0", "--json")).stdout)).toMatchObject({
      from: null,
      to: 0,
      files: [{ path: "draft.md" }],
    });
  });

  it("colours only when asked to (NO_COLOR off, FORCE_COLOR on)", async () => {
    const plain = await diff(id, "2");
    expect(plain.stdout).not.toContain("\u001b[");
    const coloured = await runNudge(["session", "diff", id, "2"], {
      cwd: repo,
      env: { NO_COLOR: "", FORCE_COLOR: "1" },
    });
    expect(coloured.stdout).toContain("\u001b[31m-beta\u001b[39m");
    expect(coloured.stdout).toContain("\u001b[32m+BETA\u001b[39m");
    expect(coloured.stdout).toContain("\u001b[36m@@ -1,3 +1,3 @@\u001b[39m");
    expect(coloured.stdout).toContain("\u001b[1mdiff --git a/notes.txt b/notes.txt\u001b[22m");
  });

  it.each([
    [["9"], /^error: session \w+ has no turn 9$/m],
    [["--from", "0", "--to", "7"], /^error: session \w+ has no turn 7$/m],
    [["x"], /^error: turn must be a whole number/m],
    [[], /^error: say which changes to show/m],
    [["1", "--from", "0", "--to", "1"], /^error: give a turn or --from\/--to, not both$/m],
    [["--from", "1"], /^error: --from and --to go together$/m],
  ])("rejects %j with an error and a hint, exit 1", async (args, message) => {
    const run = await diff(id, ...args);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toMatch(/^hint: /m);
    expect(run.stdout).toBe("");
  });
});

describe("nudge session diff --json on a mode change", () => {
  it("a chmod-only change gives its modes (before: modified 0/0 and nothing else), and nowIgnored is always there", async () => {
    const repo = await gitdir({ "run.sh": "echo hi\n" });
    const recorded = await recordSession(
      repo,
      [{ tool: "Bash", input: { command: "chmod +x run.sh", description: "make it runnable" } }, { text: "Done." }],
      ["make run.sh executable"],
    );
    try {
      const run = await runNudge(["session", "diff", recorded.id, "1", "--json"], { cwd: repo });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout).files).toEqual([
        {
          path: "run.sh",
          status: "modified",
          insertions: 0,
          deletions: 0,
          binary: false,
          oldMode: "100644",
          newMode: "100755",
          nowIgnored: false,
        },
      ]);
    } finally {
      await recorded.api.close();
    }
  });
});
