/**
 * `nudge claude loop` end to end: the real claude binary against the scripted API, in real temp
 * repositories, with checks that depend on the files the scripted tool calls create.
 */
import { execa } from "execa";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Manifest } from "../../src/store/manifest-schema.js";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { readManifestFile } from "../support/record.js";
import { NUDGE_CLI, runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptStep, type ScriptedApi } from "../support/scripted-api.js";
import { treeListing, workTreeListing } from "../support/tree-listing.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const RUN_FLAGS = ["--claude-bin", CLAUDE_BIN, "--permission-mode", "acceptEdits", "--allowed-tools", "Bash"];

async function loop(repo: string, steps: ScriptStep[], args: string[], input = "") {
  api = await startScriptedApi(steps);
  const env = claudeEnv(api, path.join(tempDir("nudge-cfg-"), "claude"));
  const run = await runNudge(["claude", "loop", ...RUN_FLAGS, ...args], { cwd: repo, env, input, timeout: 120_000 });
  return { run, ...session(repo, run.stderr) };
}

function session(repo: string, stderr: string): { id: string; manifest: Manifest } {
  const id = /● session (\w+):/.exec(stderr)?.[1];
  if (!id) throw new Error(`no session in:\n${stderr}`);
  return { id, manifest: readManifestFile(path.join(repo, ".git", "nudge", "sessions", id)) };
}

const write = (repo: string, file: string, reply: string): ScriptStep[] => [
  { tool: "Write", input: { file_path: path.join(repo, file), content: `${file}\n` } },
  { text: reply },
];

/** The prompt that started each turn, as the API received it (requests that carry tool results are skipped). */
function prompts(a: ScriptedApi): string[] {
  type Block = { type: string; text?: string };
  const sent: string[] = [];
  for (const request of a.mainLoopRequests()) {
    const user = [...request.body.messages].reverse().find((m: { role: string }) => m.role === "user") as {
      content: string | Block[];
    };
    const blocks: Block[] = typeof user.content === "string" ? [{ type: "text", text: user.content }] : user.content;
    if (blocks.some((b) => b.type === "tool_result")) continue;
    sent.push(
      blocks
        .filter((b) => b.type === "text" && !b.text!.startsWith("<system-reminder>"))
        .map((b) => b.text)
        .join("\n"),
    );
  }
  return sent;
}

/** A check that counts three files like a test runner would: "== 2 failed, 1 passed in 0.01s ==". */
const COUNTING_CHECK = `n=0; for f in a b c; do test -f "$f" && n=$((n+1)); done; echo "== $((3-n)) failed, $n passed in 0.01s =="; test "$n" = 3`;

describe("nudge claude loop", () => {
  it("stops when the check passes on the third iteration: 3 turns, each with its check, exit 0; a rewind to iteration 2 gives its tree", async () => {
    const repo = await gitdir();
    const steps = [
      ...write(repo, "step1.txt", "one"),
      ...write(repo, "step2.txt", "two"),
      ...write(repo, "done.txt", "three"),
      { text: "never asked" },
    ];
    const { run, id, manifest } = await loop(repo, steps, ["make done.txt exist", "--until", "test -f done.txt"]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /✓ loop done: the check passed after iteration 3 \(turn 3 of session \w+\) · 3 iterations/,
    );
    expect(manifest.turns.map((t) => t.check?.exitCode)).toEqual([1, 1, 1, 0]);
    expect(manifest.turns[3]!.check).toMatchObject({ command: "test -f done.txt", exitCode: 0 });
    expect(api!.remaining()).toBe(1);

    // The first prompt is the goal; the next ones carry the goal and the check's verdict.
    const sent = prompts(api!);
    expect(sent).toHaveLength(3);
    expect(sent[0]).toBe("make done.txt exist");
    expect(sent[1]).toContain("make done.txt exist");
    expect(sent[1]).toMatch(
      /iteration 2 of 10\] After your last turn the check `test -f done\.txt` still fails \(exit status 1\)/,
    );
    expect(manifest.turns.map((t) => t.prompt?.split("\n")[0] ?? null)).toEqual([
      null,
      "make done.txt exist",
      "make done.txt exist",
      "make done.txt exist",
    ]);

    // show marks every turn's check, and --json carries it.
    const show = await runNudge(["session", "show", id], { cwd: repo });
    expect(show.stdout).toMatch(/^TURN .* RESULT +CHECK +LOOP$/m);
    expect(show.stdout).toMatch(/^0 .*✗ exit 1$/m);
    expect(show.stdout).toMatch(/^1 .*✗ exit 1 +iteration 1 · \S+$/m);
    expect(show.stdout).toMatch(/^3 .*✓ passed +iteration 3 · \S+$/m);
    const json = JSON.parse((await runNudge(["session", "show", id, "--json"], { cwd: repo })).stdout);
    expect(json.turns[3].check).toMatchObject({ command: "test -f done.txt", exitCode: 0 });
    // replay says it after each turn, as the loop did.
    const replay = await runNudge(["session", "replay", id], { cwd: repo, env: { NO_COLOR: "1" } });
    expect(replay.stdout.match(/^ {2}[✓✗] check test -f done\.txt: .*$/gm)).toEqual([
      "  ✗ check test -f done.txt: exit 1",
      "  ✗ check test -f done.txt: exit 1",
      "  ✓ check test -f done.txt: passed",
    ]);

    // Iteration 2 is a turn like any other: rewinding to it gives its tree.
    const rewind = await runNudge(["session", "rewind", id, "2", "--yes"], { cwd: repo });
    expect(rewind.exitCode, rewind.stderr).toBe(0);
    expect(await workTreeListing(repo)).toEqual(await treeListing(repo, manifest.turns[2]!.snapshot.tree));
    expect(existsSync(path.join(repo, "step2.txt"))).toBe(true);
    expect(existsSync(path.join(repo, "done.txt"))).toBe(false);
  });

  it("the no-change guard stops a loop that has stopped moving: exit 3, and the summary names the best turn to rewind to", async () => {
    const repo = await gitdir({ "README.md": "# test\n" });
    const steps: ScriptStep[] = [
      ...write(repo, "a", "made a"),
      ...write(repo, "b", "made b"),
      { tool: "Bash", input: { command: "rm b", description: "remove b" } },
      { text: "removed b" },
      { text: "I am not sure what to do" },
      { text: "still not sure" },
      { text: "never asked" },
    ];
    const { run, id, manifest } = await loop(repo, steps, [
      "make a, b and c",
      "--until",
      COUNTING_CHECK,
      "--guard-no-change",
      "2",
    ]);
    expect(run.exitCode, run.stderr).toBe(3);
    expect(manifest.turns).toHaveLength(6);
    expect(run.stderr).toContain(
      "■ loop stopped: guard tripped: no file changed in 2 iterations in a row (--guard-no-change 2) · 5 iterations",
    );
    expect(run.stderr).toContain("last check: turn 5: exit 1 · 2 failed, 1 passed");
    // Turn 2 got furthest (1 failed, 2 passed); later turns fell back.
    expect(run.stderr).toContain(
      `best turn: 2: exit 1 · 1 failed, 2 passed · go back to it: nudge session rewind ${id} 2`,
    );
    expect(api!.remaining()).toBe(1);
  });

  it("stops when a budget is spent: --max-iterations, --max-cost, --max-minutes; --prompt-file makes every prompt", async () => {
    const repo = await gitdir();
    const template = path.join(tempDir(), "PROMPT.md");
    writeFileSync(
      template,
      "Goal: {{goal}}\nIteration {{iteration}}/{{max_iterations}}; `{{check}}` said {{exit_code}}:\n{{output}}\n",
    );
    const byIterations = await loop(
      repo,
      [{ text: "first" }, { text: "second" }, { text: "never asked" }],
      ["say hello", "--until", "echo not yet; false", "--max-iterations", "2", "--prompt-file", template],
    );
    expect(byIterations.run.exitCode, byIterations.run.stderr).toBe(3);
    expect(byIterations.run.stderr).toContain("■ loop stopped: budget spent: 2 iterations run (--max-iterations 2)");
    expect(byIterations.manifest.turns).toHaveLength(3);
    expect(prompts(api!)).toEqual([
      "Goal: say hello\nIteration 1/2; `echo not yet; false` said 1:\nnot yet\n",
      "Goal: say hello\nIteration 2/2; `echo not yet; false` said 1:\nnot yet\n",
    ]);
    await api!.close();

    const byCost = await loop(
      repo,
      [{ text: "first" }, { text: "never asked" }],
      ["say hello", "--until", "false", "--max-cost", "0.000001"],
    );
    expect(byCost.run.exitCode, byCost.run.stderr).toBe(3);
    expect(byCost.run.stderr).toMatch(
      /■ loop stopped: budget spent: \$0\.\d+ spent \(--max-cost 0\.000001\) · 1 iteration/,
    );
    expect(byCost.manifest.turns).toHaveLength(2);
    await api!.close();

    // Time is watched as it passes: a turn still running when it is up is interrupted.
    const started = Date.now();
    const byTime = await loop(
      repo,
      [{ delayMs: 30_000, then: { text: "too late" } }],
      ["say hello", "--until", "false", "--max-minutes", "0.05"],
    );
    expect(byTime.run.exitCode, byTime.run.stderr).toBe(3);
    expect(Date.now() - started).toBeLessThan(25_000);
    expect(byTime.run.stderr).toContain("the loop's time is up (--max-minutes 0.05): interrupting the turn");
    expect(byTime.run.stderr).toContain(
      "■ loop stopped: budget spent: 3 seconds passed (--max-minutes 0.05) · 1 iteration",
    );
    expect(byTime.run.stderr).toContain("turn 1 was not checked: the loop stopped first");
    expect(byTime.manifest.turns[1]!.status).toBe("interrupted");
  });

  it("a line typed during the loop is the next prompt, and the loop goes on after it", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([
      { delayMs: 1500, then: { text: "thinking about it" } },
      ...write(repo, "steered.txt", "did as you said"),
      ...write(repo, "done.txt", "done"),
    ]);
    const env = claudeEnv(api, path.join(tempDir("nudge-cfg-"), "claude"));
    const child = execa(
      "node",
      [NUDGE_CLI, "claude", "loop", ...RUN_FLAGS, "make done.txt", "--until", "test -f done.txt"],
      {
        cwd: repo,
        env: { NO_COLOR: "1", ...env },
        reject: false,
        timeout: 120_000,
      },
    );
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    const start = Date.now();
    while (!stderr.includes("iteration 1 of 10") && Date.now() - start < 30_000)
      await new Promise((r) => setTimeout(r, 25));
    child.stdin!.write("write steered.txt first\n"); // while turn 1 runs
    const run = await child;
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain("↻ iteration 2 of 10 · your line");
    const { manifest } = session(repo, run.stderr);
    expect(manifest.turns.map((t) => t.prompt?.split("\n")[0] ?? null)).toEqual([
      null,
      "make done.txt",
      "write steered.txt first",
      "make done.txt",
    ]);
    expect(prompts(api).slice(1, 2)).toEqual(["write steered.txt first"]);
    expect(manifest.turns.map((t) => t.check?.exitCode)).toEqual([1, 1, 1, 0]);
  });

  it("Ctrl-C stops the loop after the current turn; that turn is checked and the bundle is complete", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([{ delayMs: 2000, then: { text: "slow answer" } }, { text: "never asked" }]);
    const env = claudeEnv(api, path.join(tempDir("nudge-cfg-"), "claude"));
    const child = execa("node", [NUDGE_CLI, "claude", "loop", ...RUN_FLAGS, "take your time", "--until", "false"], {
      cwd: repo,
      env: { NO_COLOR: "1", ...env },
      reject: false,
      timeout: 120_000,
    });
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    const start = Date.now();
    while (api.mainLoopRequests().length === 0 && Date.now() - start < 30_000)
      await new Promise((r) => setTimeout(r, 25));
    child.kill("SIGINT");
    const run = await child;
    expect(run.exitCode, run.stderr).toBe(3);
    expect(run.stderr).toContain("⏸ the loop stops after this turn");
    expect(run.stderr).toContain("■ loop stopped: stopped by you (Ctrl-C) · 1 iteration");
    const { id, manifest } = session(repo, run.stderr);
    expect(manifest.turns).toHaveLength(2);
    expect(manifest.turns[1]).toMatchObject({ status: "complete", check: { exitCode: 1 } });
    const [listed] = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout);
    expect(listed).toMatchObject({ id, state: "complete" });
  });

  it("the repeat guard cuts a turn that calls the same tool over and over", async () => {
    const repo = await gitdir();
    const same: ScriptStep = { tool: "Bash", input: { command: "echo again >> log.txt", description: "again" } };
    const { run, manifest } = await loop(
      repo,
      [same, same, same, same, same, { text: "done" }],
      ["append", "--until", "false", "--guard-repeat", "3"],
    );
    expect(run.exitCode, run.stderr).toBe(3);
    expect(run.stderr).toContain(
      "guard: Bash(echo again >> log.txt) was called 3 times with the same input and no edit in between (--guard-repeat 3); interrupting the turn",
    );
    expect(run.stderr).toContain("■ loop stopped: guard tripped: Bash(echo again >> log.txt) was called 3 times");
    expect(manifest.turns).toHaveLength(2);
    expect(manifest.turns[1]!.status).toBe("interrupted");
  });
});

describe("nudge claude loop and API errors", () => {
  it("stops at once on an API error the next iteration would meet again (400 prompt is too long), says why, exit 1 (issue 15, item 10)", async () => {
    const repo = await gitdir();
    const tooLong: ScriptStep = {
      httpError: {
        status: 400,
        type: "invalid_request_error",
        message: "prompt is too long: 250000 tokens > 200000 maximum",
      },
    };
    const { run, manifest } = await loop(
      repo,
      [tooLong, tooLong, tooLong, tooLong, tooLong],
      ["grow it", "--until", "exit 1"],
    );
    expect(run.exitCode, run.stderr).toBe(1);
    expect(api!.mainLoopRequests()).toHaveLength(1); // one iteration, not one per iteration until a guard
    expect(run.stderr).toMatch(
      /^■ loop stopped: the API refused claude's request, and the next iteration would meet the same: HTTP 400: Prompt is too long.* · 1 iteration · /m,
    );
    expect(run.stderr).toMatch(
      /hint: the conversation is too long for the model: go on in a compacted fork \(nudge claude run -r \w+, then \/compact\)/,
    );
    expect(run.stderr).not.toContain("no file changed");
    expect(manifest.turns).toHaveLength(2);
  });
});

describe("nudge claude loop refuses before anything starts", () => {
  it("without --until, with a check that cannot run, with a bad template", async () => {
    const repo = await gitdir();
    const noCheck = await runNudge(["claude", "loop", "--claude-bin", CLAUDE_BIN, "do it"], { cwd: repo });
    expect(noCheck.exitCode).toBe(1);
    expect(noCheck.stderr).toMatch(
      /^error: a loop needs a check: --until <command>, or --until-promise <text>\nhint: .*--until false --max-iterations 5/m,
    );

    const notFound = await runNudge(
      ["claude", "loop", "--claude-bin", CLAUDE_BIN, "do it", "--until", "no-such-check-xyz --run"],
      { cwd: repo },
    );
    expect(notFound.exitCode).toBe(1);
    expect(notFound.stderr).toMatch(/^error: the check cannot run \(exit 127: .*no-such-check-xyz.*not found\)/m);

    const syntax = await runNudge(["claude", "loop", "--claude-bin", CLAUDE_BIN, "do it", "--until", "test -f 'x"], {
      cwd: repo,
    });
    expect(syntax.exitCode).toBe(1);
    expect(syntax.stderr).toMatch(/^error: --until is not a valid shell command/m);

    const template = path.join(tempDir(), "t.md");
    writeFileSync(template, "{{goal}}\nfix it: {{ouput}}\n");
    const bad = await runNudge(
      ["claude", "loop", "--claude-bin", CLAUDE_BIN, "do it", "--until", "true", "--prompt-file", template],
      { cwd: repo },
    );
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain(`error: ${template}:2: unknown placeholder {{ouput}}`);

    const flag = await runNudge(
      ["claude", "loop", "--claude-bin", CLAUDE_BIN, "do it", "--until", "true", "--max-cost", "lots"],
      { cwd: repo },
    );
    expect(flag.exitCode).toBe(1);
    expect(flag.stderr).toMatch(/^error: invalid --max-cost/m);
    expect(existsSync(path.join(repo, ".git", "nudge", "sessions"))).toBe(false);
  });
});
