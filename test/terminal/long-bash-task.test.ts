/**
 * claude reports a long Bash command as a task: it is not a subagent.
 * Reproduced through the built CLI with the real claude binary and the scripted API on real temp
 * repositories.
 */
import { afterEach, describe, expect, it } from "vitest";
import { gitdir } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { readStreamOf } from "../support/stream.js";

let recorded: Recorded | undefined;
afterEach(async () => {
  await recorded?.api.close();
  recorded = undefined;
});

describe("terminal rendering", () => {
  it("a long-running Bash command is not called a subagent", async () => {
    // claude 2.1.329 emits system/task_started (task_type "local_bash") for a Bash command that runs a
    // few seconds; nudge shows every task_started as a subagent: "⠋ subagent: sleep 6 …" live and
    // "⎿ subagent done: sleep 6 …" in the transcript (and in replay).
    const repo = await gitdir({ "a.txt": "a\n" });
    recorded = await recordSession(
      repo,
      [{ tool: "Bash", input: { command: "sleep 6; echo done > late.txt" } }, { text: "slept" }],
      ["sleep a while"],
    );
    const conversation = readStreamOf(recorded.dir).toString("utf8");
    expect(conversation).toMatch(/"task_type":"local_bash"/); // the event is there: the test checks what it is called
    const replay = await runNudge(["session", "replay", recorded.id], { cwd: repo });
    expect(replay.exitCode, replay.stderr).toBe(0);
    expect(replay.stdout + replay.stderr).not.toMatch(/subagent/);
  }, 90_000);
});
