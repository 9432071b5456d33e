/**
 * A turn's file count is one count: `session show` (the turn's CHANGES) and `session diff --stat`
 * agree. The real claude turns a file into a symlink with Bash (git writes a type change as a
 * deletion and an addition under one header, which the turn's count took for two files), edits
 * a second file and adds a third.
 */
import { describe, expect, it } from "vitest";
import { gitdir } from "../support/gitdir.js";
import { recordSession } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";

describe("a turn's file count", () => {
  it("is the same in session show and session diff --stat when a file became a symlink", async () => {
    const repo = await gitdir({ "a.txt": "one\n", "b.txt": "two\n", "c.txt": "three\n" });
    const rec = await recordSession(
      repo,
      [
        {
          tool: "Bash",
          input: {
            command: "rm a.txt && ln -s c.txt a.txt && echo TWO > b.txt && echo new > d.txt",
            description: "reshuffle",
          },
        },
        { text: "Done." },
      ],
      ["reshuffle the files"],
    );
    const stat = await runNudge(["session", "diff", rec.id, "1", "--stat"], { cwd: repo });
    expect(stat.exitCode, stat.stderr).toBe(0);
    expect(stat.stdout).toMatch(/ 3 files changed, /);
    const show = await runNudge(["session", "show", rec.id], { cwd: repo });
    expect(show.exitCode, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/^1 +reshuffle the files +3 files \+/m);
    expect(rec.manifest.turns[1]!.patch.filesChanged).toBe(3);
  });
});
