/**
 * `nudge claude loop --fresh` (issue 20): every iteration a new claude conversation started from
 * the prompt file as it is then, the code carried over, the whole loop one session whose turns are
 * the iterations. The real claude binary against the scripted API, in real temp repositories.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { CLAUDE_BIN } from "../support/claude-env.js";
import { gitdir } from "../support/gitdir.js";
import { readManifestFile } from "../support/record.js";
import { dialogue, runLoop, sentPrompts, texts, toolResults, turnStarts } from "../support/loop.js";
import { runNudge } from "../support/run-nudge.js";
import { treeListing, workTreeListing } from "../support/tree-listing.js";

describe("nudge claude loop --fresh", () => {
  it("starts every iteration in a new conversation with the files carried over and the prompt file read again; one session, logs per iteration, rewind to iteration 2 gives its code and its own conversation", async () => {
    const repo = await gitdir({ "PROMPT.md": "Build the thing. Say <promise>COMPLETE</promise> when it is done.\n" });
    const { api, env, run, id, dir, manifest } = await runLoop(
      repo,
      [
        { tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "from iteration 1\n" } },
        { text: "wrote a.txt" },
        { tool: "Bash", input: { command: "cat a.txt", description: "read a" } },
        // The prompt file is edited while the loop runs (here by claude itself): iteration 3 gets the new one.
        { tool: "Bash", input: { command: "printf 'Second prompt: finish up.\\n' > PROMPT.md", description: "steer" } },
        { text: "edited the prompt" },
        { text: "all done <promise>COMPLETE</promise>" },
        { text: "never asked" },
      ],
      ["--fresh", "--prompt-file", "PROMPT.md", "--until-promise", "COMPLETE", "--max-iterations", "5"],
    );
    onTestFinished(() => api.close());
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /✓ loop done: claude said <promise>COMPLETE<\/promise> after iteration 3 \(turn 3 of session \w+\) · 3 iterations/,
    );
    expect(run.stderr).toContain("↻ iteration 2 of 5 · fresh context");
    expect(api.remaining()).toBe(1);

    // Each iteration's first request carries its prompt alone: nothing of the iterations before.
    const starts = turnStarts(api);
    expect(starts).toHaveLength(3);
    for (const request of starts) expect(dialogue(request)).toHaveLength(1);
    expect(texts(starts[1]!).join("\n")).not.toContain("wrote a.txt");
    // ...but the files are there: iteration 2's `cat a.txt` read what iteration 1 wrote.
    const catResult = api
      .mainLoopRequests()
      .find((r) => toolResults(r).some((b) => JSON.stringify(b.content).includes("from iteration 1")));
    expect(catResult).toBeDefined();
    expect(sentPrompts(api)).toEqual([
      "Build the thing. Say <promise>COMPLETE</promise> when it is done.\n",
      "Build the thing. Say <promise>COMPLETE</promise> when it is done.\n",
      "Second prompt: finish up.\n",
    ]);

    // One nudge session, one turn per iteration, each its own claude conversation.
    expect(manifest.turns).toHaveLength(4);
    const claudeIds = manifest.turns.slice(1).map((t) => t.claudeSessionId);
    expect(new Set(claudeIds).size).toBe(3);
    expect(manifest.turns.slice(1).map((t) => t.loop)).toEqual([
      expect.objectContaining({
        role: "iteration",
        iteration: 1,
        fresh: true,
        promise: null,
        log: "iterations/turn-001.ndjson",
      }),
      expect.objectContaining({
        role: "iteration",
        iteration: 2,
        fresh: true,
        promise: null,
        log: "iterations/turn-002.ndjson",
      }),
      expect.objectContaining({
        role: "iteration",
        iteration: 3,
        fresh: true,
        promise: "COMPLETE",
        log: "iterations/turn-003.ndjson",
      }),
    ]);

    // The iteration logs: claude's raw NDJSON of each iteration, and the folder is named on stderr.
    expect(run.stderr).toContain(`iteration logs (raw NDJSON per turn): ${path.join(dir, "iterations")}`);
    for (const [i, t] of manifest.turns.slice(1).entries()) {
      const lines = readFileSync(path.join(dir, t.loop!.log!), "utf8")
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l) as { type: string; session_id?: string });
      expect(lines.at(-1)!.type).toBe("result");
      const sessions = new Set(lines.map((l) => l.session_id).filter(Boolean));
      expect([...sessions]).toEqual([claudeIds[i]]);
    }

    // Rewind to iteration 2: its code...
    const rewind = await runNudge(["session", "rewind", id, "2", "--yes"], { cwd: repo });
    expect(rewind.exitCode, rewind.stderr).toBe(0);
    expect(await workTreeListing(repo)).toEqual(await treeListing(repo, manifest.turns[2]!.snapshot.tree));
    expect(readFileSync(path.join(repo, "PROMPT.md"), "utf8")).toBe("Second prompt: finish up.\n");
    // ...and its own conversation: going on from there, claude sees iteration 2 only.
    api.push({ text: "going on from iteration 2" });
    const more = await runNudge(
      ["claude", "run", "-c", "--claude-bin", CLAUDE_BIN, "--permission-mode", "acceptEdits", "what now?"],
      { cwd: repo, env, timeout: 120_000 },
    );
    expect(more.exitCode, more.stderr).toBe(0);
    const seen = texts(api.mainLoopRequests().at(-1)!).join("\n");
    expect(seen).toContain("edited the prompt");
    expect(seen).toContain("what now?");
    expect(seen).not.toContain("wrote a.txt");
    expect(seen).not.toContain("all done");
    expect(readManifestFile(dir).turns).toHaveLength(4); // the loop's session keeps all its iterations
    expect(existsSync(path.join(repo, "a.txt"))).toBe(true);
  });

  it("a line typed during a fresh loop goes with the next iteration's prompt (a fresh claude would not know the task from the line alone)", async () => {
    const repo = await gitdir();
    const { api, run, manifest } = await runLoop(
      repo,
      [{ text: "one" }, { text: "<promise>COMPLETE</promise>" }, { text: "never asked" }],
      ["make notes", "--fresh", "--until-promise", "COMPLETE"],
      {
        input: "also write notes.txt\n",
      },
    );
    onTestFinished(() => api.close());
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain("↻ iteration 2 of 10 · your line · fresh context");
    const second = sentPrompts(api)[1]!;
    expect(second).toMatch(/^make notes\n/);
    expect(second).toContain("[nudge loop] From the person running this loop: also write notes.txt");
    expect(dialogue(turnStarts(api)[1]!)).toHaveLength(1);
    expect(manifest.turns).toHaveLength(3);
  });
});
