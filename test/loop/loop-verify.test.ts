/**
 * `nudge claude loop --verify` (issue 20): when the loop would end, a fresh claude with read-only
 * tools checks the work; its <verify-fail> reason reaches the next iteration, its turns are
 * recorded and marked. Real claude, scripted API.
 */
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { CLAUDE_BIN } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { dialogue, runLoop, sentPrompts, toolResults, turnStarts } from "../support/loop.js";
import { runNudge } from "../support/run-nudge.js";

describe("nudge claude loop --verify", () => {
  it("runs a read-only verifier (its Write is refused) whose fail reason reaches the next iteration; a pass ends the loop; the verifier's turns are marked", async () => {
    const repo = await gitdir();
    const { api, run, id, manifest, env } = await runLoop(
      repo,
      [
        { text: "Done! <promise>COMPLETE</promise>" },
        // The verifier tries to change a file: it has no Write tool.
        { tool: "Write", input: { file_path: path.join(repo, "hack.txt"), content: "verifier was here\n" } },
        { text: "<verify-fail>the tests were never run</verify-fail>" },
        { text: "Ran them now. <promise>COMPLETE</promise>" },
        { tool: "Bash", input: { command: "ls", description: "look" } },
        { text: "All good. <verify-pass/>" },
        { text: "Docs added." },
      ],
      ["make the tests pass", "--until-promise", "COMPLETE", "--verify"],
    );
    onTestFinished(() => api.close());
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /✓ loop done: claude said <promise>COMPLETE<\/promise>, and the verifier agreed after iteration 2 .* · 2 iterations and 2 verifications/,
    );
    expect(api.remaining()).toBe(1);

    const starts = turnStarts(api);
    expect(starts).toHaveLength(4);
    const verifiers = [starts[1]!, starts[3]!];
    for (const request of verifiers) {
      // A conversation of its own, with read-only tools only.
      expect(dialogue(request)).toHaveLength(1);
      const tools = (request.body.tools as Array<{ name: string }>).map((t) => t.name);
      expect(tools).toEqual(expect.arrayContaining(["Bash", "Read", "Glob", "Grep"]));
      for (const writer of ["Write", "Edit", "NotebookEdit"]) expect(tools).not.toContain(writer);
    }
    // The main loop's own requests still have Write.
    expect((starts[0]!.body.tools as Array<{ name: string }>).map((t) => t.name)).toContain("Write");
    const refused = api
      .mainLoopRequests()
      .flatMap(toolResults)
      .find((b) => b.is_error);
    expect(JSON.stringify(refused?.content)).toContain("No such tool available: Write");
    expect(existsSync(path.join(repo, "hack.txt"))).toBe(false);

    const sent = sentPrompts(api);
    expect(sent[1]).toContain("You are a verifier.");
    expect(sent[1]).toContain("<task>\nmake the tests pass\n</task>");
    expect(sent[2]).toContain("A verifier checked the work and found it not done:\nthe tests were never run");
    // Not --fresh: iteration 2 goes on in the loop's own conversation, not the verifier's.
    const second = dialogue(starts[2]!)
      .map((m) => JSON.stringify(m.content))
      .join("\n");
    expect(second).toContain("Done! <promise>COMPLETE</promise>");
    expect(second).not.toContain("verify-fail");

    expect(manifest.turns.slice(1).map((t) => [t.loop?.role, t.loop?.iteration, t.loop?.verdict ?? null])).toEqual([
      ["iteration", 1, null],
      ["verifier", 1, { pass: false, reason: "the tests were never run" }],
      ["iteration", 2, null],
      ["verifier", 2, { pass: true, reason: null }],
    ]);
    const show = await runNudge(["session", "show", id], { cwd: repo });
    expect(show.stdout).toMatch(/^2 .*verifier of 1 · \S+ · ✗ the tests were never run$/m);
    expect(show.stdout).toMatch(/^4 .*verifier of 2 · \S+ · ✓ pass$/m);
    const replay = await runNudge(["session", "replay", id], { cwd: repo, env: { NO_COLOR: "1" } });
    expect(replay.stdout.match(/^ {2}[✓✗] verifier of iteration .*$/gm)).toEqual([
      "  ✗ verifier of iteration 1: the tests were never run",
      "  ✓ verifier of iteration 2: pass",
    ]);

    // From QA: the session continued afterwards goes on with the work's conversation, not the verifier's.
    const more = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN, "-r", id, "now add docs"], {
      cwd: repo,
      env,
    });
    expect(more.exitCode, more.stderr).toBe(0);
    const next = dialogue(turnStarts(api).at(-1)!)
      .map((m) => JSON.stringify(m.content))
      .join("\n");
    expect(next).toContain("now add docs");
    expect(next).toContain("Ran them now.");
    expect(next).not.toContain("You are a verifier");
  });

  it("--verify FILE is the verifier's prompt; an answer with no verdict counts as a fail", async () => {
    const repo = await gitdir();
    const file = path.join(tempDir(), "VERIFY.md");
    writeFileSync(file, "Check the work. Say <verify-pass/> or <verify-fail>why</verify-fail>.\n");
    const { api, run } = await runLoop(
      repo,
      [
        { text: "<promise>COMPLETE</promise>" },
        { text: "Looks fine to me." },
        { text: "<promise>COMPLETE</promise>" },
        { text: "<verify-pass/>" },
      ],
      ["do it", "--until-promise", "COMPLETE", `--verify=${file}`],
    );
    onTestFinished(() => api.close());
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      "verifier: no <verify-pass/> or <verify-fail>…</verify-fail> in its answer: counts as a fail",
    );
    const sent = sentPrompts(api);
    expect(sent[1]).toBe("Check the work. Say <verify-pass/> or <verify-fail>why</verify-fail>.\n");
    expect(sent[2]).toContain("A verifier checked the work and did not confirm that it is done.");

    const missing = await runNudge(["claude", "loop", "--until", "true", "--verify", "make it work"], { cwd: repo });
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toMatch(
      /^error: --verify: no such file: make it work\nhint: a word right after --verify is its prompt file/m,
    );
  });

  it("from QA: with a prompt file, the verifier's task is the file with its placeholders filled and the goal given, not the raw template", async () => {
    const repo = await gitdir();
    const file = path.join(tempDir(), "PROMPT.md");
    writeFileSync(file, "{{goal}}: study the specs, then fix it. {{feedback}}\n");
    const { api, run } = await runLoop(
      repo,
      [{ text: "<promise>COMPLETE</promise>" }, { text: "<verify-pass/>" }],
      ["ship the parser", "--prompt-file", file, "--until-promise", "COMPLETE", "--verify"],
    );
    onTestFinished(() => api.close());
    expect(run.exitCode, run.stderr).toBe(0);
    const verifier = sentPrompts(api)[1]!;
    expect(verifier).toContain("<task>\nship the parser: study the specs, then fix it.\n</task>");
    expect(verifier).not.toContain("{{");
  });

  it("a guard that cut an iteration short, whose work then passed, does not stop the loop after the verifier disagrees", async () => {
    const repo = await gitdir();
    const same = { tool: "Bash", input: { command: "echo again >> log.txt", description: "again" } };
    const fail = { text: "<verify-fail>not yet</verify-fail>" };
    const pass = { text: "<verify-pass/>" };
    // Whether claude asks once more before the interrupt lands is a race: the script ends in a pass either way.
    const { api, run } = await runLoop(
      repo,
      [same, same, same, { delayMs: 1500, then: fail }, fail, pass, pass, pass],
      ["append", "--until", "true", "--guard-repeat", "3", "--verify"],
    );
    onTestFinished(() => api.close());
    expect(run.stderr).toContain("(--guard-repeat 3); interrupting the turn");
    expect(run.stderr).toContain("verifier: <verify-fail> not yet");
    expect(run.stderr).not.toContain("loop stopped: guard tripped");
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/✓ loop done: the check passed, and the verifier agreed after iteration 2/);
  });
});
