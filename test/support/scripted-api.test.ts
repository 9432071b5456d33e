// Proves the scripted API really drives the real claude binary: a scripted
// Write tool call must create the file on disk.
import { afterEach, expect, test } from "vitest";
import { execa } from "execa";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {
  firstUserText,
  isSubagentRequest,
  routeByFirstUserText,
  startScriptedApi,
  type ScriptedApi,
} from "./scripted-api.js";
import { CLAUDE_ARGS, CLAUDE_BIN, claudeEnv } from "./claude-env.js";

let api: ScriptedApi | undefined;
const tempDirs: string[] = [];

afterEach(async () => {
  await api?.close();
  api = undefined;
  await Promise.all(tempDirs.splice(0).map((d) => fs.rm(d, { recursive: true, force: true })));
});

test("scripted Write step makes the real claude create a file", { timeout: 60_000 }, async () => {
  const cwd = await fs.mkdtemp(path.join(os.tmpdir(), "nudge-scripted-cwd-"));
  const configDir = await fs.mkdtemp(path.join(os.tmpdir(), "nudge-scripted-cfg-"));
  tempDirs.push(cwd, configDir);
  const target = path.join(cwd, "hello.txt");
  api = await startScriptedApi([
    { tool: "Write", input: { file_path: target, content: "hi from the script\n" } },
    { text: "Wrote hello.txt." },
  ]);

  // One prompt, then EOF: claude finishes the turn and exits on its own.
  const prompt = { type: "user", message: { role: "user", content: "Create hello.txt" } };
  const run = await execa(CLAUDE_BIN, CLAUDE_ARGS, {
    cwd,
    env: claudeEnv(api, configDir),
    input: JSON.stringify(prompt) + "\n",
    timeout: 50_000,
  });

  expect(await fs.readFile(target, "utf8")).toBe("hi from the script\n");
  const lines = run.stdout
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
  const results = lines.filter((l) => l.type === "result");
  expect(results).toHaveLength(1);
  expect(results[0].subtype).toBe("success");
  expect(results[0].result).toBe("Wrote hello.txt.");
  expect(api.remaining()).toBe(0);
  expect(api.mainLoopRequests()).toHaveLength(2);
});

/** One main-loop request as claude sends it: streaming, with tools, `first` as its first user message. */
async function ask(url: string, first: string, system = "main"): Promise<string> {
  const res = await fetch(`${url}/v1/messages?beta=true`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      stream: true,
      tools: [{ name: "Write" }],
      system: [{ type: "text", text: system }],
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "<system-reminder>x</system-reminder>" },
            { type: "text", text: first },
          ],
        },
      ],
    }),
  });
  const sse = await res.text();
  return [...sse.matchAll(/"text_delta","text":"([^"]*)"/g)].map((m) => m[1]).join("");
}

test("a route of its own answers an agent's requests from its own script, the rest keep the default script's order", async () => {
  api = await startScriptedApi([{ text: "main 1" }, { text: "main 2" }], {
    route: routeByFirstUserText("SUBTASK", "sub"),
    routes: { sub: [{ text: "sub 1" }] },
  });
  expect(await ask(api.url, "go")).toBe("main 1");
  expect(await ask(api.url, "SUBTASK: write")).toBe("sub 1");
  expect(await ask(api.url, "go")).toBe("main 2");
  api.pushTo("sub", { text: "sub 2" });
  expect(api.remaining("sub")).toBe(1);
  expect(await ask(api.url, "SUBTASK: write")).toBe("sub 2");
  expect(await ask(api.url, "SUBTASK: write")).toBe("(script exhausted)");
  expect(api.mainLoopRequests().map((r) => r.route)).toEqual(["default", "sub", "default", "sub", "sub"]);
  expect(api.remaining()).toBe(0);
});

test("a route the test did not script, or none, takes the default script; subagents are told by their system prompt", async () => {
  api = await startScriptedApi([{ text: "main 1" }, { text: "main 2" }], {
    route: (body) => (isSubagentRequest(body) ? "nowhere" : undefined),
  });
  expect(await ask(api.url, "go", "cc_entrypoint=sdk-cli; cc_is_subagent=true;")).toBe("main 1");
  expect(await ask(api.url, "go")).toBe("main 2");
  expect(isSubagentRequest(api.requests[0]!.body)).toBe(true);
  expect(isSubagentRequest(api.requests[1]!.body)).toBe(false);
  expect(firstUserText(api.requests[0]!.body)).toBe("<system-reminder>x</system-reminder>\ngo");
});
