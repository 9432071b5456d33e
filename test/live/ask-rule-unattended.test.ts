/**
 * An ask rule with nobody at a terminal: the refusal names the rule, not a flag already given.
 * Found by black-box QA of the built CLI (real claude binary, scripted Messages API, real temp
 * git repositories).
 */
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gitdir, writeFiles } from "../support/gitdir.js";
import { recordSession } from "../support/record.js";
import { type ScriptedApi } from "../support/scripted-api.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("ask rule without a terminal", () => {
  it("an ask rule refused without a terminal does not tell the user (or claude) to rerun with the flag that was already given", async () => {
    const repo = await gitdir();
    writeFiles(repo, {
      ".nudge/rules.yaml": `version: 1
rules:
  - id: env-files
    match: { tool: Write, path: '.env' }
    action: ask
    message: .env holds real credentials.
`,
    });
    // acceptEdits is given; the ask rule is what asks (and, without a terminal, refuses).
    const recorded = await recordSession(
      repo,
      [{ tool: "Write", input: { file_path: path.join(repo, ".env"), content: "A=1\n" } }, { text: "not written" }],
      ["write .env"],
    );
    try {
      expect(recorded.stderr).toContain("rule env-files asked about Write(.env)");
      // Rerunning with --permission-mode acceptEdits cannot help: the rule asks "even where claude's
      // mode would allow the call". Neither the notice nor what claude is told may suggest it.
      expect(recorded.stderr).not.toMatch(/allow it with --permission-mode acceptEdits/);
      const toClaude = JSON.stringify(recorded.api.mainLoopRequests()[1]!.body.messages);
      expect(toClaude).not.toContain("rerun with --permission-mode acceptEdits");
    } finally {
      await recorded.api.close();
    }
  });
});
