/**
 * The project's rules in a live `nudge claude run`, with the real claude binary: a deny rule stops
 * a Bash command before it runs and claude is told why; a note rule's message follows the tool's
 * result; both decisions are in the bundle.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitdir, writeFiles } from "../support/gitdir.js";
import { recordSession } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";

const RULES = `version: 1
rules:
  - id: no-rm
    match: { tool: Bash, command: '\\brm\\b' }
    action: deny
    message: Never delete files with rm here; move them to trash/ instead.
  - id: pnpm-only
    match: { tool: Bash, command: '\\bnpm\\b' }
    action: note
    message: This repository uses pnpm; run pnpm next time.
`;

describe("rules in a live session", () => {
  it("deny: the command never runs and claude receives the rule's message; note: the message follows the result", async () => {
    const repo = await gitdir({ "keep.txt": "precious\n" });
    writeFiles(repo, { ".nudge/rules.yaml": RULES });
    const recorded = await recordSession(
      repo,
      [
        { tool: "Bash", input: { command: "rm keep.txt", description: "delete" } },
        { tool: "Bash", input: { command: "echo npm > used-npm.txt", description: "npm" } },
        { text: "done" },
      ],
      ["clean up"],
    );
    try {
      expect(existsSync(path.join(repo, "keep.txt"))).toBe(true);
      expect(readFileSync(path.join(repo, "used-npm.txt"), "utf8")).toBe("npm\n");
      const requests = recorded.api.mainLoopRequests().map((r) => JSON.stringify(r.body.messages));
      expect(requests[1]).toContain("Never delete files with rm here; move them to trash/ instead.");
      expect(requests[2]).toContain("This repository uses pnpm; run pnpm next time.");
      // Shown as they happen, and kept in the bundle as nudge's answers to claude.
      expect(recorded.stderr).toMatch(/rule no-rm denied Bash\(rm keep\.txt\)/);
      // claude's "hook error" result only repeats the rule's message: not shown again.
      expect(recorded.stdout).not.toMatch(/hook error/);
      const input = readFileSync(path.join(recorded.dir, "input.jsonl"), "utf8");
      expect(input).toContain(`Blocked by the project's rule \\"no-rm\\"`);
      expect(input).toContain(`Note from the project's rule \\"pnpm-only\\"`);
      // A replay says what each rule decided, once, where it happened.
      const replay = await runNudge(["session", "replay", recorded.id], { cwd: repo, env: { NO_COLOR: "1" } });
      expect(replay.exitCode, replay.stderr).toBe(0);
      const lines = replay.stdout.split("\n");
      const denied = lines.indexOf(
        "⚖ rule no-rm denied Bash(rm keep.txt): Never delete files with rm here; move them to trash/ instead.",
      );
      const noted = lines.indexOf(
        "⚖ rule pnpm-only noted on Bash(echo npm > used-npm.txt): This repository uses pnpm; run pnpm next time.",
      );
      expect(denied).toBeGreaterThan(lines.indexOf("⏺ Bash(rm keep.txt)"));
      expect(noted).toBeGreaterThan(lines.indexOf("⏺ Bash(echo npm > used-npm.txt)"));
      expect(lines.filter((l) => l.startsWith("⚖"))).toHaveLength(2);
      expect(replay.stdout).not.toMatch(/hook error/);
    } finally {
      await recorded.api.close();
    }
  });

  it("a broken rules file is one clear error before anything starts", async () => {
    const repo = await gitdir();
    writeFiles(repo, {
      ".nudge/rules.yaml":
        "version: 1\nrules:\n  - id: x\n    match: { comand: rm }\n    action: deny\n    message: no\n",
    });
    const { runNudge } = await import("../support/run-nudge.js");
    const run = await runNudge(["claude", "run", "--claude-bin", "/bin/true", "hi"], { cwd: repo });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/^error: \.nudge\/rules\.yaml:4:\d+: rule "x": unknown key "comand"/m);
    expect(run.stderr).toMatch(/^hint: /m);
    expect(existsSync(path.join(repo, ".git", "nudge", "sessions"))).toBe(false);
  });
});
