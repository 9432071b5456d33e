/** Running `nudge claude loop` in tests: the real claude against the scripted API, and what the API saw. */
import path from "node:path";
import type { Manifest } from "../../src/store/manifest-schema.js";
import { CLAUDE_BIN, claudeEnv } from "./claude-env.js";
import { tempDir } from "./gitdir.js";
import { readManifestFile } from "./record.js";
import { runNudge } from "./run-nudge.js";
import { startScriptedApi, type ScriptStep, type ScriptedApi, type RecordedRequest } from "./scripted-api.js";

export const LOOP_FLAGS = ["--claude-bin", CLAUDE_BIN, "--permission-mode", "acceptEdits", "--allowed-tools", "Bash"];

/** A loop in `repo` against a new scripted API (returned, for the test to look at and close). */
export async function runLoop(
  repo: string,
  steps: ScriptStep[],
  args: string[],
  o: { input?: string; env?: Record<string, string>; configDir?: string } = {},
) {
  const api = await startScriptedApi(steps);
  const configDir = o.configDir ?? path.join(tempDir("nudge-cfg-"), "claude");
  const env = { ...claudeEnv(api, configDir), ...o.env };
  const run = await runNudge(["claude", "loop", ...LOOP_FLAGS, ...args], {
    cwd: repo,
    env,
    input: o.input ?? "",
    timeout: 180_000,
  });
  return { api, env, run, ...loopSession(repo, run.stderr) };
}

function loopSession(repo: string, stderr: string): { id: string; dir: string; manifest: Manifest } {
  const id = /● session (\w+):/.exec(stderr)?.[1];
  if (!id) throw new Error(`no session in:\n${stderr}`);
  const dir = path.join(repo, ".git", "nudge", "sessions", id);
  return { id, dir, manifest: readManifestFile(dir) };
}

type Block = { type: string; text?: string; content?: unknown; is_error?: boolean; name?: string };

/** A request's messages as text blocks (system reminders left out). */
export function texts(request: RecordedRequest): string[] {
  const out: string[] = [];
  for (const m of dialogue(request)) {
    const blocks: Block[] = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    for (const b of blocks) if (b.type === "text" && !b.text!.startsWith("<system-reminder>")) out.push(b.text!);
  }
  return out;
}

type Message = { role: string; content: string | Block[] };

/** The conversation a request carries: its user and assistant messages (claude adds system ones of its own). */
export function dialogue(request: RecordedRequest): Message[] {
  return (request.body.messages as Message[]).filter((m) => m.role === "user" || m.role === "assistant");
}

/** The requests that started a turn (not the ones carrying a tool's result), in order. */
export function turnStarts(api: ScriptedApi): RecordedRequest[] {
  return api.mainLoopRequests().filter((r) => {
    const last = dialogue(r).at(-1)!;
    return typeof last.content === "string" || !last.content.some((b) => b.type === "tool_result");
  });
}

/** The prompt that started each turn, as the API received it. */
export function sentPrompts(api: ScriptedApi): string[] {
  return turnStarts(api).map((r) => {
    const last = dialogue(r).at(-1)!;
    const blocks: Block[] = typeof last.content === "string" ? [{ type: "text", text: last.content }] : last.content;
    return blocks
      .filter((b) => b.type === "text" && !b.text!.startsWith("<system-reminder>"))
      .map((b) => b.text)
      .join("\n");
  });
}

/** The tool results a request carries. */
export function toolResults(request: RecordedRequest): Block[] {
  const last = dialogue(request).at(-1)!;
  return typeof last.content === "string" ? [] : last.content.filter((b) => b.type === "tool_result");
}
