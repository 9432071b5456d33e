/**
 * How a loop ends (issue 20): `--until-promise` (alone, or with `--until`, which must agree), the
 * FAILURE promise, promises in code blocks that do not count, an iteration that ends on a tool call,
 * and `--max-iterations` holding however the iterations end. Real claude, scripted API.
 */
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import type { ScriptStep } from "../support/scripted-api.js";
import { gitdir } from "../support/gitdir.js";
import { runLoop, sentPrompts } from "../support/loop.js";
import { runNudge } from "../support/run-nudge.js";

const writeDone = (repo: string): ScriptStep => ({
  tool: "Write",
  input: { file_path: path.join(repo, "done.txt"), content: "done\n" },
});

describe("nudge claude loop --until-promise", () => {
  it("ignores a promise in a code block or a quote, does not trust one the --until check refutes (and says so to claude), and stops when both agree", async () => {
    const repo = await gitdir();
    const { api, run, id, manifest } = await runLoop(
      repo,
      [
        {
          text: "The file will say:\n```\n<promise>COMPLETE</promise>\n```\nand the log said\n> <promise>COMPLETE</promise>\nnot yet, and `<promise>COMPLETE</promise>` is how I will end.",
        },
        { text: "I think it is done. <promise>COMPLETE</promise>" },
        writeDone(repo),
        { text: "Now it is. <promise>COMPLETE</promise>" },
        { text: "never asked" },
      ],
      ["make done.txt", "--until-promise", "COMPLETE", "--until", "test -f done.txt"],
    );
    onTestFinished(() => api.close());
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /✓ loop done: claude said <promise>COMPLETE<\/promise> and the check passed after iteration 3/,
    );
    expect(manifest.turns.map((t) => t.loop?.promise ?? null)).toEqual([null, null, "COMPLETE", "COMPLETE"]);
    expect(manifest.turns.map((t) => t.check?.exitCode)).toEqual([1, 1, 1, 0]);
    expect(run.stderr).toContain(
      "✗ claude says <promise>COMPLETE</promise>, but the check fails: not trusted, the loop goes on",
    );
    const sent = sentPrompts(api);
    expect(sent).toHaveLength(3);
    // nudge's own prompts tell claude how the loop ends, and the refuted promise is fed back.
    expect(sent[0]).toContain("When the whole task is done, end your last message with <promise>COMPLETE</promise>");
    expect(sent[1]).not.toContain("You said <promise>COMPLETE</promise>");
    expect(sent[2]).toContain(
      "You said <promise>COMPLETE</promise>, but the check `test -f done.txt` still fails (exit status 1)",
    );
    expect(api.remaining()).toBe(1);
    const show = await runNudge(["session", "show", id], { cwd: repo });
    expect(show.stdout).toMatch(/^2 .*✗ exit 1 +iteration 2 · \S+ · promised COMPLETE$/m);
  });

  it("a promise in an HTML comment, in a quote inside a list item, or in quotation marks does not end the loop; one said after them does", async () => {
    const repo = await gitdir();
    const { api, run, manifest } = await runLoop(
      repo,
      [
        { text: "Working on it. <!-- <promise>COMPLETE</promise> -->" },
        { text: "The tool printed:\n- > <promise>COMPLETE</promise>\n\nso not yet." },
        { text: 'When the file exists I will end with "<promise>COMPLETE</promise>".' },
        { text: "All done.\n\n<promise>COMPLETE</promise>" },
        { text: "never asked" },
      ],
      ["make done.txt", "--until-promise", "COMPLETE", "--no-guards"],
    );
    onTestFinished(() => api.close());
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/✓ loop done: claude said <promise>COMPLETE<\/promise> after iteration 4/);
    expect(manifest.turns.map((t) => t.loop?.promise ?? null)).toEqual([null, null, null, null, "COMPLETE"]);
    expect(api.remaining()).toBe(1);
  });

  it("an iteration that ends on a tool call with no text counts and the loop goes on", async () => {
    const repo = await gitdir();
    const { api, run, manifest } = await runLoop(
      repo,
      [
        { tool: "Bash", input: { command: "touch one.txt", description: "one" } },
        { text: "<promise>COMPLETE</promise>" },
        { text: "never asked" },
      ],
      // --max-turns 1: claude runs the tool and ends the turn there (error_max_turns), its last message a tool call.
      ["make one.txt", "--until-promise", "COMPLETE", "--max-turns", "1"],
    );
    onTestFinished(() => api.close());
    expect(run.exitCode, run.stderr).toBe(0);
    expect(manifest.turns[1]!.result).toMatchObject({ subtype: "error_max_turns" });
    expect(manifest.turns[1]!.patch.filesChanged).toBe(1);
    expect(run.stderr).toMatch(/✓ loop done: claude said <promise>COMPLETE<\/promise> after iteration 2/);
    expect(api.remaining()).toBe(1);
  });

  it("<promise>FAILURE</promise> stops the loop with exit 3 and claude's reason; --fail-promise names another", async () => {
    const repo = await gitdir();
    const failed = await runLoop(
      repo,
      [
        { text: "The API this needs was shut down; I cannot finish.\n<promise>FAILURE</promise>" },
        { text: "never asked" },
      ],
      ["port it", "--until-promise", "COMPLETE"],
    );
    onTestFinished(() => failed.api.close());
    expect(failed.run.exitCode, failed.run.stderr).toBe(3);
    expect(failed.run.stderr).toContain(
      "■ loop stopped: claude gave up: <promise>FAILURE</promise>: The API this needs was shut down; I cannot finish. · 1 iteration",
    );
    expect(failed.api.remaining()).toBe(1);

    const own = await runLoop(
      repo,
      [
        { text: "<promise>FAILURE</promise> is just a word here" },
        { text: "stuck <promise>STUCK</promise>" },
        { text: "never asked" },
      ],
      ["port it", "--until", "false", "--fail-promise", "STUCK"],
    );
    onTestFinished(() => own.api.close());
    expect(own.run.exitCode, own.run.stderr).toBe(3);
    expect(own.run.stderr).toContain("■ loop stopped: claude gave up: <promise>STUCK</promise>: stuck · 2 iterations");
  });

  it("--max-iterations holds when every iteration promises and every verification refutes it", async () => {
    const repo = await gitdir();
    const promise: ScriptStep = { text: "<promise>COMPLETE</promise>" };
    const refute: ScriptStep = { text: "<verify-fail>not done</verify-fail>" };
    const { api, run, manifest } = await runLoop(
      repo,
      [promise, refute, promise, refute, promise, refute, promise, refute],
      ["do it", "--until-promise", "COMPLETE", "--verify", "--max-iterations", "2", "--no-guards"],
    );
    onTestFinished(() => api.close());
    expect(run.exitCode, run.stderr).toBe(3);
    expect(run.stderr).toContain(
      "■ loop stopped: budget spent: 2 iterations run (--max-iterations 2) · 2 iterations and 2 verifications",
    );
    expect(manifest.turns.slice(1).map((t) => t.loop?.role)).toEqual([
      "iteration",
      "verifier",
      "iteration",
      "verifier",
    ]);
    expect(api.remaining()).toBe(4);
  });
});

describe("nudge claude loop refuses unclear endings", () => {
  it("the same word for done and failed; a promise with angle brackets; --model with --model-strategy", async () => {
    const repo = await gitdir();
    const same = await runNudge(["claude", "loop", "x", "--until-promise", "FAILURE"], { cwd: repo });
    expect(same.exitCode).toBe(1);
    expect(same.stderr).toMatch(/^error: --until-promise and --fail-promise are both "FAILURE"/m);
    const brackets = await runNudge(["claude", "loop", "x", "--until-promise", "<b>"], { cwd: repo });
    expect(brackets.exitCode).toBe(1);
    expect(brackets.stderr).toMatch(/^error: invalid --until-promise: plain text/m);
    const both = await runNudge(
      ["claude", "loop", "x", "--until", "true", "--model", "opus", "--model-strategy", "haiku,opus"],
      { cwd: repo },
    );
    expect(both.exitCode).toBe(1);
    expect(both.stderr).toMatch(/^error: --model and --model-strategy cannot be used together/m);
  });
});
