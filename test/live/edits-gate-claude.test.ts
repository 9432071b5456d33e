/**
 * What the edits gate (src/live/edits-gate.ts) relies on, checked on the pinned claude: its
 * PreToolUse hook is called before Bash, Write and Edit run, and the tool waits for the answer, in
 * every permission mode; the tools that only read are not called back; a rule's hook on the same
 * tool is called too and the tool waits for both. Drives claude directly (the gate's registration
 * and answers are nudge's own), so it checks claude's side alone.
 */
import { execa } from "execa";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { describe, expect, it } from "vitest";
import { HookCallbackRequest } from "../../src/claude/control-protocol.js";
import { withEditsGate } from "../../src/live/edits-gate.js";
import type { ToolGuard } from "../../src/live/control-handler.js";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { startScriptedApi } from "../support/scripted-api.js";

/** A rule-like hook on Bash only, answered at once. */
const RULE_ID = "a-rule";
const rules: ToolGuard = {
  hooks: () => ({ PreToolUse: [{ matcher: "^(?:Bash)$", hookCallbackIds: [RULE_ID] }] }),
  answer: () => ({ hookSpecificOutput: { hookEventName: "PreToolUse" } }),
};

/** One turn of Bash, Write, Read and Edit in `mode`, the gate holding each call 300 ms; what was seen when. */
async function runMode(mode: string): Promise<string[]> {
  const repo = await gitdir({ "e.txt": "old\n" });
  const api = await startScriptedApi([
    { tool: "Bash", input: { command: "echo b > b.txt", description: "make b" } },
    { tool: "Write", input: { file_path: path.join(repo, "w.txt"), content: "w\n" } },
    { tool: "Read", input: { file_path: path.join(repo, "e.txt") } },
    { tool: "Edit", input: { file_path: path.join(repo, "e.txt"), old_string: "old", new_string: "new" } },
    { text: "done" },
  ]);
  // Held: the gate's answer waits as for a capture in progress.
  let holding = false;
  const gate = withEditsGate(rules, async () => {
    holding = true;
    await new Promise((r) => setTimeout(r, 300));
    holding = false;
    return true;
  });
  const state = () =>
    `b=${existsSync(path.join(repo, "b.txt"))} w=${existsSync(path.join(repo, "w.txt"))} e=${readFileSync(path.join(repo, "e.txt"), "utf8").trim()}`;
  const seen: string[] = [];
  // As root claude refuses bypassPermissions unless it is told it runs in a sandbox.
  const claude = execa(
    CLAUDE_BIN,
    [
      "-p",
      "--verbose",
      "--input-format",
      "stream-json",
      "--output-format",
      "stream-json",
      "--permission-prompt-tool",
      "stdio",
      "--permission-mode",
      mode,
    ],
    {
      cwd: repo,
      env: { ...claudeEnv(api, tempDir()), ...(mode === "bypassPermissions" ? { IS_SANDBOX: "1" } : {}) },
      reject: false,
      timeout: 60_000,
    },
  );
  const send = (line: object) => claude.stdin!.write(JSON.stringify(line) + "\n");
  send({ type: "control_request", request_id: "init", request: { subtype: "initialize", hooks: gate.hooks() } });
  send({ type: "user", message: { role: "user", content: "go" } });
  for await (const line of readline.createInterface({ input: claude.stdout! })) {
    const event = JSON.parse(line);
    if (event.type === "result") break;
    if (event.type !== "control_request") continue;
    const respond = (response: object) =>
      send({ type: "control_response", response: { subtype: "success", request_id: event.request_id, response } });
    if (event.request.subtype === "hook_callback") {
      const hook = HookCallbackRequest.parse(event.request);
      seen.push(`${hook.callback_id} ${hook.input.tool_name}: ${state()}`);
      void Promise.resolve(gate.answer(hook.callback_id, hook.input)).then((output) => {
        if (hook.callback_id !== RULE_ID) seen.push(`  answered ${hook.input.tool_name}: ${state()}`);
        respond(output);
      });
    } else if (event.request.subtype === "can_use_tool") {
      // Any permission asked comes after the hooks, while nothing holds the call.
      seen.push(`  asked ${event.request.tool_name} holding=${holding}`);
      respond({ behavior: "allow", updatedInput: event.request.input });
    }
  }
  claude.stdin!.end();
  await claude;
  await api.close();
  return seen
    .filter((l) => !l.startsWith("  asked"))
    .concat(`end: ${state()}`, `asked while held: ${seen.some((l) => l.endsWith("holding=true"))}`);
}

const HELD_IN_ORDER = [
  "nudge-edits-gate Bash: b=false w=false e=old",
  "a-rule Bash: b=false w=false e=old",
  "  answered Bash: b=false w=false e=old",
  "nudge-edits-gate Write: b=true w=false e=old",
  "  answered Write: b=true w=false e=old",
  "nudge-edits-gate Edit: b=true w=true e=old",
  "  answered Edit: b=true w=true e=old",
];

describe("the edits gate on the real claude", () => {
  // Plan mode: claude itself refuses the Bash (a tool that is not read-only), after the hook.
  for (const [mode, end] of [
    ["default", "b=true w=true e=new"],
    ["acceptEdits", "b=true w=true e=new"],
    ["bypassPermissions", "b=true w=true e=new"],
    ["plan", "b=false w=true e=new"],
  ] as const) {
    it(`${mode}: every tool that can change a file is called back before it runs and waits for the answer; Read is not`, async () => {
      const seen = await runMode(mode);
      const held = mode === "plan" ? HELD_IN_ORDER.map((l) => l.replace("b=true", "b=false")) : HELD_IN_ORDER;
      // The two hooks on Bash are called together, in either order.
      expect([...seen.slice(0, 2)].sort()).toEqual([...held.slice(0, 2)].sort());
      expect(seen.slice(2)).toEqual([...held.slice(2), `end: ${end}`, "asked while held: false"]);
    }, 60_000);
  }
});
