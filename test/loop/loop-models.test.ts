/**
 * Which model runs each iteration (issue 20): `--model-strategy` moves up after failed
 * iterations, `<next-model>` is honoured with `--allow-model-hints` only, and `session show` says
 * which model ran each iteration. The model is read where it matters: in the API request.
 */
import { describe, expect, it, onTestFinished } from "vitest";
import { gitdir } from "../support/gitdir.js";
import { dialogue, LOOP_FLAGS, runLoop, turnStarts } from "../support/loop.js";
import { runNudge } from "../support/run-nudge.js";

describe("nudge claude loop --model-strategy", () => {
  it("moves up after a failed iteration, takes claude's <next-model> when allowed, keeps the conversation across the switch, and show names each iteration's model", async () => {
    const repo = await gitdir();
    const { api, run, id, manifest } = await runLoop(
      repo,
      [
        { text: "trying" },
        { text: "try the small one: <next-model>haiku</next-model>" },
        { text: "again" },
        { text: "never asked" },
      ],
      [
        "do it",
        "--until",
        "false",
        "--max-iterations",
        "3",
        "--no-guards",
        "--model-strategy",
        "haiku,sonnet",
        "--escalate-after",
        "1",
        "--allow-model-hints",
      ],
    );
    onTestFinished(() => api.close());
    expect(run.exitCode, run.stderr).toBe(3);
    const models = turnStarts(api).map((r) => r.body.model as string);
    expect(models).toHaveLength(3);
    expect(models[0]).toMatch(/haiku/);
    expect(models[1]).toMatch(/sonnet/);
    expect(models[2]).toMatch(/haiku/);
    expect(run.stderr).toContain(
      "↑ model sonnet from the next iteration (1 failed iteration on haiku; --model-strategy)",
    );
    expect(run.stderr).toContain("model haiku for the next iteration, as claude asked (<next-model>)");
    // Not --fresh: a new model is a new claude process in the same conversation.
    expect(JSON.stringify(dialogue(turnStarts(api)[2]!))).toContain("trying");
    expect(manifest.turns.slice(1).map((t) => t.loop?.model)).toEqual(models);
    const show = await runNudge(["session", "show", id], { cwd: repo });
    for (const [i, model] of models.entries())
      expect(show.stdout).toMatch(new RegExp(`^${i + 1} .*iteration ${i + 1} · ${model}$`, "m"));
  });

  it("ignores <next-model> without --allow-model-hints", async () => {
    const repo = await gitdir();
    const { api, run } = await runLoop(
      repo,
      [{ text: "use <next-model>opus</next-model>" }, { text: "ok" }],
      ["do it", "--until", "false", "--max-iterations", "2", "--model", "haiku"],
    );
    onTestFinished(() => api.close());
    expect(run.exitCode, run.stderr).toBe(3);
    expect(run.stderr).toContain(
      "claude asked for <next-model>opus</next-model>; ignored (--allow-model-hints lets it choose)",
    );
    const models = turnStarts(api).map((r) => r.body.model as string);
    expect(models).toHaveLength(2);
    for (const model of models) expect(model).toMatch(/haiku/);
  });

  it("from QA: claude's own --model after -- is refused beside a strategy, as is --escalate-after without one, and a promise's spaces are trimmed", async () => {
    const repo = await gitdir();
    const both = await runNudge(
      [
        "claude",
        "loop",
        ...LOOP_FLAGS,
        "do it",
        "--until-promise",
        "DONE",
        "--model-strategy",
        "haiku,sonnet",
        "--",
        "--model",
        "opus",
      ],
      { cwd: repo },
    );
    expect(both.exitCode).toBe(1);
    expect(both.stderr).toMatch(/^error: --model after -- and --model-strategy cannot be used together$/m);
    const alone = await runNudge(
      ["claude", "loop", ...LOOP_FLAGS, "do it", "--until-promise", "DONE", "--escalate-after", "3"],
      { cwd: repo },
    );
    expect(alone.exitCode).toBe(1);
    expect(alone.stderr).toMatch(/^error: --escalate-after needs --model-strategy$/m);
    const blank = await runNudge(["claude", "loop", ...LOOP_FLAGS, "do it", "--until-promise", "   "], { cwd: repo });
    expect(blank.exitCode).toBe(1);
    expect(blank.stderr).toMatch(/--until-promise/);
    const { api, run } = await runLoop(
      repo,
      [{ text: "<promise>DONE</promise>" }],
      ["do it", "--until-promise", " DONE ", "--max-iterations", "2", "--no-guards"],
    );
    onTestFinished(() => api.close());
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain("claude said <promise>DONE</promise>");
  });
});
