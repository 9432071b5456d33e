/**
 * Issue 21: `session diff` with colour highlights each file's code by its language (added lines on
 * a green background, the keywords coloured), and on a terminal goes through the pager. Recorded
 * with the real claude binary writing a TypeScript file.
 */
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gitdir } from "../support/gitdir.js";
import { inTerminal } from "../support/pty.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";

let recorded: Recorded | undefined;
afterEach(async () => {
  await recorded?.api.close();
  recorded = undefined;
});

describe("session diff, highlighted", () => {
  it("colours the code by its language with colour on, keeps git's plain lines without, and pages on a terminal", async () => {
    const repo = await gitdir();
    recorded = await recordSession(
      repo,
      [
        {
          tool: "Write",
          input: { file_path: path.join(repo, "add.ts"), content: "export const sum = (a: number) => a + 1;\n" },
        },
        { text: "done" },
      ],
      ["write add.ts"],
    );
    const coloured = await runNudge(["session", "diff", recorded.id, "1"], {
      cwd: repo,
      env: { NO_COLOR: "", FORCE_COLOR: "1" },
    });
    expect(coloured.exitCode, coloured.stderr).toBe(0);
    // The added line: green background, a green +, then `export` and `const` in the keyword colour.
    expect(coloured.stdout).toContain(
      "\u001b[48;5;22m\u001b[32m+\u001b[39m\u001b[35mexport\u001b[39;22;23m \u001b[35mconst\u001b[39;22;23m",
    );
    const plain = await runNudge(["session", "diff", recorded.id, "1"], { cwd: repo });
    expect(plain.stdout).toContain("\n+export const sum = (a: number) => a + 1;");

    // On a terminal, through $PAGER (here one that marks what it was given).
    const t = inTerminal(repo, ["session", "diff", recorded.id, "1"], { PAGER: "sed 's/^/PAGED: /'" });
    expect((await t.child).exitCode, t.text()).toBe(0);
    expect(t.text()).toContain("PAGED: +export const sum = (a: number) => a + 1;");
  });
});
