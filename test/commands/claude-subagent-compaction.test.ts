/**
 * One of claude's own sessions with a subagent (the Agent tool, its transcript in claude's side
 * folder `<id>/subagents/`) and a compaction (`/compact`), made by the pinned claude: listed,
 * shown with the subagent's work under its call and the compaction as a mark after the turns
 * before it (still shown), adopted and resumed with what claude itself would hold.
 */
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { runClaude } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi } from "../support/scripted-api.js";
import path from "node:path";

let repo: string;
let env: Record<string, string>;
let id: string;

type Entry = {
  kind: string;
  name?: string;
  text?: string;
  markdown?: string;
  children?: Entry[];
  result?: { content: { text: string } };
};

beforeAll(async () => {
  repo = await gitdir();
  const config = path.join(tempDir(), "claude");
  // The compaction is a main-loop request: its answer is the summary, in the tags claude asks for.
  const summary = "<analysis>one fact</analysis>\n<summary>SUMMARY: the subagent found X.</summary>";
  const api = await startScriptedApi([
    {
      tool: "Agent",
      input: {
        description: "look for x",
        prompt: "find X in the repo",
        subagent_type: "general-purpose",
        run_in_background: false,
      },
    },
    { tool: "Bash", input: { command: "echo SUBAGENT-BASH-OUTPUT", description: "look" } },
    { text: "SUBAGENT FOUND X" },
    { text: "MAIN DONE" },
    { text: summary },
    { text: "AFTER COMPACTION" },
  ]);
  env = claudeEnv(api, config);
  const run = (args: string[]) =>
    execa(CLAUDE_BIN, ["-p", ...args, "--output-format", "json", "--allowedTools", "Bash"], {
      cwd: repo,
      env: { ...process.env, ...env },
      input: "",
      reject: false,
    });
  const first = await run(["use a subagent to find X"]);
  expect(first.exitCode, first.stderr).toBe(0);
  id = (JSON.parse(first.stdout) as { session_id: string }).session_id;
  for (const prompt of ["/compact", "after compaction?"]) {
    const next = await run(["--resume", id, prompt]);
    expect(next.exitCode, next.stderr).toBe(0);
  }
  await api.close();
}, 240_000);

const nudge = (args: string[]) => runNudge(args, { cwd: repo, env });

describe("claude's own session with a subagent and a compaction", () => {
  it("is listed, and shown with the subagent's work under its call and the compaction as a mark after the turns before it", async () => {
    const list = JSON.parse((await nudge(["session", "list", "--json"])).stdout) as Array<{
      id: string;
      turns: number;
    }>;
    expect(list.find((s) => s.id === id)).toMatchObject({ turns: 3 });
    const show = await nudge(["session", "show", id, "--json"]);
    expect(show.exitCode, show.stderr).toBe(0);
    const turns = (JSON.parse(show.stdout) as { turns: Array<{ prompt: string; entries: Entry[] }> }).turns;
    expect(turns.map((t) => t.prompt)).toEqual(["use a subagent to find X", "/compact", "after compaction?"]);
    const agent = turns[0]!.entries.find((e) => e.kind === "tool" && e.name === "Agent")!;
    const bash = agent.children!.find((e) => e.kind === "tool" && e.name === "Bash")!;
    expect(bash.result!.content.text).toContain("SUBAGENT-BASH-OUTPUT");
    expect(agent.children!.some((e) => e.kind === "text" && e.markdown === "SUBAGENT FOUND X")).toBe(true);
    // Pre-compaction history: turn 1 whole, then the mark and the summary, none of it a prompt.
    const kinds = turns[0]!.entries.map((e) => e.kind);
    expect(turns[0]!.entries.find((e) => e.kind === "text")!.markdown).toBe("MAIN DONE");
    const mark = turns[0]!.entries.find((e) => e.kind === "mark")!;
    expect(mark.text).toMatch(/^\/compact \(manual\): \d+ → \d+ tokens; claude goes on from a summary/);
    expect(kinds.filter((k) => k === "prompt")).toHaveLength(1);
    expect(turns[0]!.entries.at(-1)!.text).toContain("SUMMARY: the subagent found X.");
    const replay = await nudge(["session", "replay", id.slice(0, 8)]);
    expect(replay.stdout).toContain("MAIN DONE\n── /compact (manual)");
    expect(replay.stdout).toContain("› /compact\n");
    expect(replay.stdout).not.toContain("› This session is being continued");
  });

  it("adopted and resumed, claude is sent what it would hold itself: the summary and what came after, not the turns before", async () => {
    const adopt = await nudge(["session", "adopt", id]);
    expect(adopt.exitCode, adopt.stderr).toBe(0);
    const adopted = /as nudge session (\w+)/.exec(adopt.stdout)![1]!;
    const api = await startScriptedApi([{ text: "going on" }]);
    const resumed = await runClaude(repo, ["-r", adopted, "and now this"], claudeEnv(api, env.CLAUDE_CONFIG_DIR!));
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const sent = JSON.stringify(api.mainLoopRequests()[0]!.body.messages);
    await api.close();
    expect(sent).toContain("SUMMARY: the subagent found X.");
    expect(sent).toContain("after compaction?");
    expect(sent).toContain("and now this");
    expect(sent).not.toContain("use a subagent to find X");
  }, 120_000);
});
